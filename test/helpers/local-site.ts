/** A web page on this machine for the WebFetch tests: served over HTTP on a free port until the file's tests end. */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll } from 'vitest';
import { parsePrivateAllowance } from '../../src/shared/policy/address-policy';

/** The worker's web settings that let WebFetch reach the local site, and nothing else private. */
export const localSiteWeb = () => ({ web: { allowPrivateAddresses: parsePrivateAllowance('127.0.0.1') } });

/** Serves `html` to every request from beforeAll to afterAll; `url()` is its address, inside tests. */
export function useLocalSite(html: string): { url: () => string } {
  let site: Server | undefined;
  let url: string | undefined;
  beforeAll(async () => {
    const server = createServer((_request, response) => {
      response.writeHead(200, { 'content-type': 'text/html' }).end(html);
    });
    site = server;
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(async () => {
    site?.closeAllConnections();
    await new Promise((resolve) => site?.close(resolve));
  });
  return {
    url: () => {
      if (url === undefined) throw new Error('The local site starts in beforeAll: use it inside a test.');
      return url;
    },
  };
}
