/** A stand-in mail relay for card key delivery: records each JSON message it is asked to send. */
import { type StandInServer, startStandIn } from "./http-stand-in.ts";

export interface RelayStandIn extends StandInServer {
  messages: Array<{ to: string; keys: string[]; checkout_id: string; subject: string }>;
  /** "down" answers 503 to every message. */
  mode: "ok" | "down";
}

export async function startMailRelay(): Promise<RelayStandIn> {
  const messages: RelayStandIn["messages"] = [];
  const server = await startStandIn((req) => {
    if (req.method !== "POST") return { status: 405 };
    if (relay.mode === "down") return { status: 503, body: { error: "down" } };
    messages.push(JSON.parse(req.body));
    return { status: 202, body: { queued: true } };
  });
  const relay: RelayStandIn = { ...server, messages, mode: "ok" };
  return relay;
}
