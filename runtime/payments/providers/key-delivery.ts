/**
 * Delivering keys bought by card to the buyer's contact address. Card keys are issued by the
 * Stripe webhook, after the buyer has left our API, so they travel out of band: JSON to a mail
 * relay (KEY_DELIVERY_URL, optional bearer KEY_DELIVERY_TOKEN). The relay is the only place the
 * plaintext keys go; our store keeps hashes only.
 */
import { apiError } from "../../errors.ts";
import type { PaymentsConfig } from "../../config.ts";
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

export function createRelayKeyDelivery(config: NonNullable<PaymentsConfig["keyDelivery"]>, options: { timeoutMs: number }): KeyDelivery {
  return {
    async deliver(message) {
      const reply = await postJson(
        config.url,
        {
          to: message.to,
          subject: `Your ${message.keys.length === 1 ? "membership key" : `${message.keys.length} membership keys`} for ${message.vertical}`,
          text: `Thank you for subscribing. Keep these keys secret; each is shown only here.\n\n${message.keys.join("\n")}\n\nSend one in the X-Service-Key header.`,
          checkout_id: message.checkoutId,
          keys: message.keys,
        },
        { headers: config.token ? { authorization: `Bearer ${config.token}` } : {}, timeoutMs: options.timeoutMs, provider: "The key delivery relay" },
      );
      if (reply.status < 200 || reply.status >= 300) throw apiError("payment_gateway_error", { detail: `The key delivery relay answered ${reply.status}.` });
    },
  };
}
