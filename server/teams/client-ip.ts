/**
 * The address a request comes from, for sign-in rate limits and the audit log. bin/kiln.js puts
 * the TCP peer's address in PEER_HEADER on every request, and the X-Forwarded-For the client sent
 * in FORWARDED_HEADER (Next.js adds an X-Forwarded-For of its own), replacing any such headers a
 * client sent. Behind a reverse proxy listed in KILN_TRUSTED_PROXIES, the client is the first
 * address of that X-Forwarded-For, read from the right, that is not one of those proxies; a proxy
 * not listed is the client itself, so nobody can pick their own address by sending the header.
 */
import { BlockList, isIP } from "node:net";

/** Set by bin/kiln.js from the socket: the TCP peer. */
export const PEER_HEADER = "x-kiln-peer";
/** Set by bin/kiln.js: the X-Forwarded-For header as the client (a proxy) sent it. */
export const FORWARDED_HEADER = "x-kiln-forwarded-for";
/** Set by Kiln on the request it hands to better-auth: the client's address as worked out here. */
export const CLIENT_IP_HEADER = "x-kiln-client-ip";

const unmapped = (ip: string) => ip.replace(/^::ffff:(?=\d+\.\d+\.\d+\.\d+$)/i, "");

/** A matcher for a list of IPs and CIDR ranges; throws on an entry that is neither. */
export function proxyMatcher(entries: string[]): (ip: string) => boolean {
  if (entries.length === 0) return () => false;
  const list = new BlockList();
  for (const entry of entries) {
    const [address, bits] = entry.split("/");
    const family = isIP(address);
    if (!family || (bits !== undefined && !/^\d+$/.test(bits)))
      throw new Error(`Invalid Kiln configuration: KILN_TRUSTED_PROXIES entry "${entry}" is not an IP address or CIDR range`);
    const type = family === 4 ? "ipv4" : "ipv6";
    if (bits === undefined) list.addAddress(address, type);
    else list.addSubnet(address, Number(bits), type);
  }
  return (ip) => {
    const a = unmapped(ip);
    const family = isIP(a);
    return family !== 0 && list.check(a, family === 4 ? "ipv4" : "ipv6");
  };
}

/** The client's address, or null when the request did not come through bin/kiln.js. */
export function clientIp(headers: Headers, trusted: (ip: string) => boolean): string | null {
  const peer = headers.get(PEER_HEADER);
  if (!peer) return null;
  if (!trusted(peer)) return unmapped(peer);
  const chain = (headers.get(FORWARDED_HEADER) ?? "").split(",").map((s) => s.trim()).filter(Boolean);
  for (let i = chain.length - 1; i >= 0; i--) {
    if (!isIP(unmapped(chain[i]))) return unmapped(peer);
    if (!trusted(chain[i])) return unmapped(chain[i]);
  }
  return unmapped(peer);
}

/**
 * True when the request came straight from a program on this machine: a loopback peer, and no
 * forwarding header (a reverse proxy on this machine relays others' requests).
 */
export function fromThisMachine(headers: Headers): boolean {
  const peer = headers.get(PEER_HEADER);
  if (!peer || headers.has(FORWARDED_HEADER) || headers.has("forwarded")) return false;
  const a = unmapped(peer);
  return a === "::1" || /^127\./.test(a);
}
