/**
 * Where this server listens, an explicit dependency of `publicBaseUrl()`: the configured host and
 * port until the server is listening, then the bound address (PORT=0 picks the port at start, so
 * it is known only then). Bound once, by `start.ts`, before the first request is served.
 */

export interface ListenAddress {
  /** `http://host:port`, with the bound port once listening. */
  readonly url: string;
  /** Records the bound address; a second call is a bug. */
  bind(url: string): void;
}

export function createListenAddress(config: { readonly host: string; readonly port: number }): ListenAddress {
  const host = config.host.includes(":") ? `[${config.host}]` : config.host;
  let url = `http://${host}:${config.port}`;
  let bound = false;
  return {
    get url() {
      return url;
    },
    bind(next) {
      if (bound) throw new Error("the listen address is bound once");
      bound = true;
      url = next;
    },
  };
}
