/**
 * Delivering keys bought by card to the buyer's contact address, besides the success page that
 * shows them once: by SMTP (`smtp-delivery.ts`, SMTP_URL) or, for operators who have one, as JSON
 * to a mail relay (KEY_DELIVERY_URL, optional bearer KEY_DELIVERY_TOKEN). Either is optional.
 */

import { apiError } from "../../../shared/errors.ts";
import type { PaymentsConfig } from "../../runtime-config.ts";
import { postJson } from "./fetch-json.ts";

export interface KeyDeliveryMessage {
  to: string;
  checkoutId: string;
  vertical: string;
  keys: string[];
}

export interface KeyDelivery {
  deliver(message: KeyDeliveryMessage): Promise<void>;
}

/** The one wording of the key mail, for every transport. */
export function keyDeliveryText(message: KeyDeliveryMessage): { subject: string; text: string } {
  return {
    subject: `Your ${message.keys.length === 1 ? "membership key" : `${message.keys.length} membership keys`} for ${message.vertical}`,
    text: `Thank you for subscribing. Keep these keys secret; each is shown only here and once on the checkout success page.\n\n${message.keys.join("\n")}\n\nSend one in the X-Service-Key header. Purchase ${message.checkoutId}.`,
  };
}

export function createRelayKeyDelivery(config: NonNullable<PaymentsConfig["keyDelivery"]>, options: { timeoutMs: number }): KeyDelivery {
  return {
    async deliver(message) {
      const reply = await postJson(
        config.url,
        {
          to: message.to,
          ...keyDeliveryText(message),
          checkout_id: message.checkoutId,
          keys: message.keys,
        },
        {
          headers: config.token ? { authorization: `Bearer ${config.token}` } : {},
          timeoutMs: options.timeoutMs,
          provider: "The key delivery relay",
        },
      );
      if (reply.status < 200 || reply.status >= 300)
        throw apiError("payment_gateway_error", { detail: `The key delivery relay answered ${reply.status}.` });
    },
  };
}
