/**
 * What a browser buyer runs: the official x402 client (`@x402/fetch` with `@x402/evm`'s exact
 * scheme) and a throwaway viem wallet, bundled by esbuild for the page the official-client test
 * serves. `window.buyWithX402` pays a checkout and reports what the page saw.
 */

import { registerExactEvmScheme } from "@x402/evm/exact/client";
import { wrapFetchWithPayment, x402Client } from "@x402/fetch";
import { privateKeyToAccount } from "viem/accounts";

async function buyWithX402(url: string, privateKey: `0x${string}`, body: unknown) {
  const client = new x402Client();
  registerExactEvmScheme(client, { signer: privateKeyToAccount(privateKey) });
  // The default cap is $1 a payment; a membership costs more.
  client.setSpendControls({ maxAmountPerPayment: "$100" });
  const pay = wrapFetchWithPayment(fetch, client);
  try {
    const res = await pay(url, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) });
    return { status: res.status, body: await res.json(), paymentResponse: res.headers.get("payment-response"), error: null };
  } catch (error) {
    return { status: 0, body: null, paymentResponse: null, error: String(error) };
  }
}

(window as unknown as { buyWithX402: typeof buyWithX402 }).buyWithX402 = buyWithX402;
