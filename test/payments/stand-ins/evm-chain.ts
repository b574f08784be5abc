/**
 * The one thing an x402 test cannot run: a blockchain. This is an in-memory chain of EIP-3009
 * stablecoins (USDC's `transferWithAuthorization`), seen through the signer interface that
 * `@x402/evm`'s facilitator code calls (`readContract`, `writeContract`, `getCode`,
 * `waitForTransactionReceipt`). Balances, used nonces and transactions are maps; signatures are
 * checked for real: each token recovers the signer from the EIP-712 typed data over ITS OWN
 * domain (name, version, chain id, address), as the deployed contract does, so a payment signed
 * for another domain name reverts here exactly as it would on chain.
 */
import {
  decodeFunctionData,
  encodeAbiParameters,
  encodeEventTopics,
  encodeFunctionResult,
  getAddress,
  type Hex,
  isAddressEqual,
  keccak256,
  parseAbi,
  recoverTypedDataAddress,
  serializeSignature,
  toHex,
  verifyTypedData,
} from "viem";

/** A token as deployed: the facts a server must advertise correctly for a payment to go through. */
export interface TokenFacts {
  network: string;
  chainId: number;
  address: Hex;
  name: string;
  version: string;
}

/** USDC as deployed (Circle's FiatTokenV2_2): the mainnet contract's EIP-712 name is "USD Coin". */
export const BASE_MAINNET_USDC: TokenFacts = {
  network: "eip155:8453",
  chainId: 8453,
  address: "0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913",
  name: "USD Coin",
  version: "2",
};
export const BASE_SEPOLIA_USDC: TokenFacts = {
  network: "eip155:84532",
  chainId: 84532,
  address: "0x036CbD53842c5426634e7929541eC2318f3dCF7e",
  name: "USDC",
  version: "2",
};

const TOKEN_ABI = parseAbi([
  "function name() view returns (string)",
  "function version() view returns (string)",
  "function balanceOf(address account) view returns (uint256)",
  "function authorizationState(address authorizer, bytes32 nonce) view returns (bool)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, uint8 v, bytes32 r, bytes32 s)",
  "function transferWithAuthorization(address from, address to, uint256 value, uint256 validAfter, uint256 validBefore, bytes32 nonce, bytes signature)",
  "event Transfer(address indexed from, address indexed to, uint256 value)",
]);
const AUTHORIZATION_TYPES = {
  TransferWithAuthorization: [
    { name: "from", type: "address" },
    { name: "to", type: "address" },
    { name: "value", type: "uint256" },
    { name: "validAfter", type: "uint256" },
    { name: "validBefore", type: "uint256" },
    { name: "nonce", type: "bytes32" },
  ],
} as const;
/** Any non-empty bytecode: the facilitator only asks whether the asset is a contract. */
const CONTRACT_CODE: Hex = "0x6080604052";

interface TokenState {
  facts: TokenFacts;
  balances: Map<string, bigint>;
  usedNonces: Set<string>;
}

export interface Transfer {
  network: string;
  from: string;
  to: string;
  value: bigint;
  hash: Hex;
}

export interface MockChain {
  /** Every transfer that reached the chain, in order. */
  transfers: Transfer[];
  fund(network: string, address: string, value: bigint): void;
  balanceOf(network: string, address: string): bigint;
  /** The signer `@x402/evm`'s facilitator schemes take, for one network of this chain. */
  signer(network: string): FacilitatorSigner;
}

export interface FacilitatorSigner {
  getAddresses(): readonly Hex[];
  readContract(args: { address: Hex; abi: readonly unknown[]; functionName: string; args?: readonly unknown[] }): Promise<unknown>;
  verifyTypedData(args: {
    address: Hex;
    domain: Record<string, unknown>;
    types: Record<string, unknown>;
    primaryType: string;
    message: Record<string, unknown>;
    signature: Hex;
  }): Promise<boolean>;
  writeContract(args: { address: Hex; abi: readonly unknown[]; functionName: string; args: readonly unknown[] }): Promise<Hex>;
  sendTransaction(args: { to: Hex; data: Hex }): Promise<Hex>;
  waitForTransactionReceipt(args: { hash: Hex }): Promise<{ status: string; logs?: readonly any[] }>;
  getCode(args: { address: Hex }): Promise<Hex | undefined>;
}

const MULTICALL3 = "0xcA11bde05977b3631167028862bE2a173976CA11";
const FACILITATOR_ADDRESS: Hex = "0x00000000000000000000000000000000000fac11";

export function createMockChain(tokens: TokenFacts[] = [BASE_MAINNET_USDC, BASE_SEPOLIA_USDC]): MockChain {
  const states = new Map<string, TokenState>(tokens.map((facts) => [facts.network, { facts, balances: new Map(), usedNonces: new Set() }]));
  const receipts = new Map<Hex, { status: string; logs: any[] }>();
  const transfers: Transfer[] = [];
  const stateOf = (network: string) => {
    const state = states.get(network);
    if (!state) throw new Error(`no token on ${network}`);
    return state;
  };

  const tokenAt = (network: string, address: string) => {
    const state = stateOf(network);
    return isAddressEqual(getAddress(address), state.facts.address) ? state : null;
  };

  /** FiatTokenV2's `transferWithAuthorization`, reverting with its own messages. */
  const transferWithAuthorization = async (state: TokenState, args: readonly unknown[], write: boolean): Promise<Hex | null> => {
    const [from, to, value, validAfter, validBefore, nonce] = args as [Hex, Hex, bigint, bigint, bigint, Hex];
    const signature =
      args.length === 9 ? serializeSignature({ v: BigInt(args[6] as number), r: args[7] as Hex, s: args[8] as Hex }) : (args[6] as Hex);
    const now = BigInt(Math.floor(Date.now() / 1000));
    if (now <= validAfter) throw new Error("FiatTokenV2: authorization is not yet valid");
    if (now >= validBefore) throw new Error("FiatTokenV2: authorization is expired");
    const nonceKey = `${from.toLowerCase()}:${nonce.toLowerCase()}`;
    if (state.usedNonces.has(nonceKey)) throw new Error("FiatTokenV2: authorization is used or canceled");
    const { facts } = state;
    const signer = await recoverTypedDataAddress({
      domain: { name: facts.name, version: facts.version, chainId: facts.chainId, verifyingContract: facts.address },
      types: AUTHORIZATION_TYPES,
      primaryType: "TransferWithAuthorization",
      message: { from, to, value, validAfter, validBefore, nonce },
      signature,
    }).catch(() => null);
    if (!signer || !isAddressEqual(signer, from)) throw new Error("FiatTokenV2: invalid signature");
    const balance = state.balances.get(from.toLowerCase()) ?? 0n;
    if (balance < value) throw new Error("ERC20: transfer amount exceeds balance");
    if (!write) return null;
    state.usedNonces.add(nonceKey);
    state.balances.set(from.toLowerCase(), balance - value);
    state.balances.set(to.toLowerCase(), (state.balances.get(to.toLowerCase()) ?? 0n) + value);
    const hash = keccak256(toHex(`${facts.network}:${nonceKey}`));
    const log = {
      address: facts.address,
      topics: encodeEventTopics({ abi: TOKEN_ABI, eventName: "Transfer", args: { from, to } }),
      data: encodeAbiParameters([{ type: "uint256" }], [value]),
      blockHash: hash,
      blockNumber: 1n,
      logIndex: 0,
      transactionHash: hash,
      transactionIndex: 0,
      removed: false,
    };
    receipts.set(hash, { status: "success", logs: [log] });
    transfers.push({ network: facts.network, from: from.toLowerCase(), to: to.toLowerCase(), value, hash });
    return hash;
  };

  const call = async (state: TokenState, functionName: string, args: readonly unknown[]): Promise<unknown> => {
    switch (functionName) {
      case "name":
        return state.facts.name;
      case "version":
        return state.facts.version;
      case "balanceOf":
        return state.balances.get(String(args[0]).toLowerCase()) ?? 0n;
      case "authorizationState":
        return state.usedNonces.has(`${String(args[0]).toLowerCase()}:${String(args[1]).toLowerCase()}`);
      case "transferWithAuthorization":
        await transferWithAuthorization(state, args, false);
        return undefined;
      default:
        throw new Error(`execution reverted: ${functionName}`);
    }
  };

  const signer = (network: string): FacilitatorSigner => ({
    getAddresses: () => [FACILITATOR_ADDRESS],
    async readContract({ address, functionName, args = [] }) {
      if (isAddressEqual(getAddress(address), MULTICALL3) && functionName === "tryAggregate") {
        const [, calls] = args as [boolean, { target: Hex; callData: Hex }[]];
        return Promise.all(
          calls.map(async ({ target, callData }) => {
            const state = tokenAt(network, target);
            if (!state) return { success: false, returnData: "0x" };
            try {
              const decoded = decodeFunctionData({ abi: TOKEN_ABI, data: callData });
              const result = await call(state, decoded.functionName, decoded.args ?? []);
              const returnData =
                decoded.functionName === "transferWithAuthorization"
                  ? "0x"
                  : encodeFunctionResult({ abi: TOKEN_ABI, functionName: decoded.functionName, result } as never);
              return { success: true, returnData };
            } catch {
              return { success: false, returnData: "0x" };
            }
          }),
        );
      }
      const state = tokenAt(network, address);
      if (!state) throw new Error(`execution reverted: no contract at ${address}`);
      return call(state, functionName, args);
    },
    verifyTypedData: (args) => verifyTypedData(args as never),
    async writeContract({ address, functionName, args }) {
      const state = tokenAt(network, address);
      if (!state || functionName !== "transferWithAuthorization") throw new Error(`execution reverted: ${functionName}`);
      return (await transferWithAuthorization(state, args, true))!;
    },
    async sendTransaction() {
      throw new Error("this chain deploys no smart wallets");
    },
    async waitForTransactionReceipt({ hash }) {
      const receipt = receipts.get(hash);
      if (!receipt) throw new Error(`transaction ${hash} not found`);
      return receipt;
    },
    async getCode({ address }) {
      return tokenAt(network, address) ? CONTRACT_CODE : undefined;
    },
  });

  return {
    transfers,
    fund(network, address, value) {
      const state = stateOf(network);
      state.balances.set(address.toLowerCase(), (state.balances.get(address.toLowerCase()) ?? 0n) + value);
    },
    balanceOf: (network, address) => stateOf(network).balances.get(address.toLowerCase()) ?? 0n,
    signer,
  };
}
