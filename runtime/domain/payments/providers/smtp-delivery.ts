/**
 * Key delivery by mail through the operator's own SMTP server (SMTP_URL, e.g.
 * `smtps://user:pass@mail.example.com:465`), with nodemailer. The message is plain text and holds
 * the keys once; they exist in clear nowhere else on our side.
 */
import nodemailer from "nodemailer";
import { apiError } from "../../../shared/errors.ts";
import type { KeyDelivery } from "./key-delivery.ts";
import { keyDeliveryText } from "./key-delivery.ts";

export function createSmtpKeyDelivery(config: { url: string; from: string }, options: { timeoutMs: number }): KeyDelivery {
  const url = new URL(config.url);
  const secure = url.protocol === "smtps:";
  const transport = nodemailer.createTransport({
    host: url.hostname,
    port: url.port ? Number(url.port) : secure ? 465 : 587,
    secure,
    ...(url.username ? { auth: { user: decodeURIComponent(url.username), pass: decodeURIComponent(url.password) } } : {}),
    connectionTimeout: options.timeoutMs,
    greetingTimeout: options.timeoutMs,
    socketTimeout: options.timeoutMs,
  });
  return {
    async deliver(message) {
      const { subject, text } = keyDeliveryText(message);
      try {
        await transport.sendMail({ from: config.from, to: message.to, subject, text });
      } catch (error) {
        throw apiError("payment_gateway_error", {
          detail: `The SMTP server did not accept the key mail (${(error as { code?: string }).code ?? "error"}).`,
        });
      }
    },
  };
}
