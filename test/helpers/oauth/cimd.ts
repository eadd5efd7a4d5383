/**
 * Client ID metadata documents over TLS: an HTTPS server on 127.0.0.1 (with
 * the committed test-only certificate for IP 127.0.0.1) that serves one
 * public client's document, and the fetcher the authorization server uses,
 * which trusts exactly that certificate.
 */
import { readFileSync } from "node:fs";
import { createServer, request, type Server } from "node:https";
import { closeServer, listen } from "./http.js";

const FIXTURES = new URL("../../fixtures/oauth/", import.meta.url);
const FETCH_TIMEOUT_MS = 5_000;
const MAX_DOCUMENT_BYTES = 64 * 1024;

export const CIMD_CERT = readFileSync(new URL("cimd-cert.pem", FIXTURES), "utf8");
const CIMD_KEY = readFileSync(new URL("cimd-key.pem", FIXTURES), "utf8");

export const CIMD_PATH = "/oauth/client-metadata.json";

export interface CimdHost {
  url: string;
  close(): Promise<void>;
}

/** The document for `url`: a public client whose client_id is that URL, redirecting to loopback. */
export function clientDocument(url: string): Record<string, unknown> {
  return {
    client_id: url,
    client_name: "metatools test client (CIMD)",
    redirect_uris: ["http://127.0.0.1/callback"],
    grant_types: ["authorization_code", "refresh_token"],
    response_types: ["code"],
    token_endpoint_auth_method: "none",
  };
}

export async function startCimdHost(): Promise<CimdHost> {
  let url = "";
  const server: Server = createServer({ cert: CIMD_CERT, key: CIMD_KEY }, (req, res) => {
    if (req.method === "GET" && req.url === CIMD_PATH) {
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(clientDocument(url)));
    } else {
      res.writeHead(404, { "content-type": "text/plain" }).end("not found");
    }
  });
  const port = await listen(server);
  url = `https://127.0.0.1:${port}${CIMD_PATH}`;
  return { url, close: () => closeServer(server) };
}

/** GETs a JSON document over https, trusting only the fixture certificate; rejects on any non-200 answer. */
export function fetchDocument(url: string): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method: "GET", ca: CIMD_CERT, headers: { accept: "application/json" }, timeout: FETCH_TIMEOUT_MS }, (res) => {
      const chunks: Buffer[] = [];
      let size = 0;
      res.on("data", (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_DOCUMENT_BYTES) req.destroy(new Error("document too large"));
        else chunks.push(chunk);
      });
      res.on("end", () => {
        if (res.statusCode !== 200) return reject(new Error(`HTTP ${res.statusCode}`));
        try {
          resolve(JSON.parse(Buffer.concat(chunks).toString("utf8")));
        } catch {
          reject(new Error("the document is not JSON"));
        }
      });
      res.on("error", reject);
    });
    req.on("timeout", () => req.destroy(new Error("timed out")));
    req.on("error", reject);
    req.end();
  });
}
