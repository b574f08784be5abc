/** agent_network's provider: the agent payment network's client (token checks and charges). */
import type { PaymentsConfig } from "../../../runtime-config.ts";
import { type AgentNetworkProvider, createAgentNetworkProvider } from "../../providers/agent-network.ts";
import type { MethodProvider } from "../../providers/payment-providers.ts";

declare module "../../providers/payment-providers.ts" {
  interface PaymentProviders {
    /** Also what per-use retrieval pays through (`payments/per-use/`). */
    agentNetwork: AgentNetworkProvider | null;
  }
}

export const agentNetworkProvider: MethodProvider = {
  field: "agentNetwork",
  create: (config: PaymentsConfig) =>
    config.methods.agent_network ? createAgentNetworkProvider(config.methods.agent_network, { timeoutMs: config.timeoutMs }) : null,
};
