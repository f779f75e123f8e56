// Invariant: the client's address is the TCP peer unless the peer is a trusted proxy, and then
// the first untrusted hop of X-Forwarded-For read from the right; nobody picks their own address.
import { describe, expect, it } from "vitest";
import { clientIp, fromThisMachine, proxyMatcher } from "./client-ip";

const h = (peer: string | null, xff?: string) => new Headers({ ...(peer !== null ? { "x-kiln-peer": peer } : {}), ...(xff ? { "x-kiln-forwarded-for": xff } : {}) });

describe("clientIp", () => {
  const none = proxyMatcher([]);
  const proxies = proxyMatcher(["10.0.0.1", "192.168.0.0/24", "::1"]);

  it("is the peer when no proxy is trusted, whatever the client claims", () => {
    expect(clientIp(h("203.0.113.5", "1.2.3.4"), none)).toBe("203.0.113.5");
    expect(clientIp(h("::ffff:127.0.0.1"), none)).toBe("127.0.0.1");
    expect(clientIp(h(null), none)).toBeNull();
  });

  it("walks X-Forwarded-For from the right past trusted proxies", () => {
    expect(clientIp(h("10.0.0.1", "198.51.100.7"), proxies)).toBe("198.51.100.7");
    expect(clientIp(h("10.0.0.1", "6.6.6.6, 198.51.100.7, 192.168.0.9"), proxies)).toBe("198.51.100.7");
    expect(clientIp(h("10.0.0.1", "not-an-ip"), proxies)).toBe("10.0.0.1");
    expect(clientIp(h("10.0.0.1"), proxies)).toBe("10.0.0.1");
  });

  it("refuses entries that are neither an address nor a range", () => {
    expect(() => proxyMatcher(["10.0.0.0/x"])).toThrow(/KILN_TRUSTED_PROXIES/);
    expect(() => proxyMatcher(["proxy.local"])).toThrow(/KILN_TRUSTED_PROXIES/);
  });

  it("counts only direct loopback peers as this machine", () => {
    expect(fromThisMachine(h("127.0.0.1"))).toBe(true);
    expect(fromThisMachine(h("::1"))).toBe(true);
    expect(fromThisMachine(h("127.0.0.1", "203.0.113.5"))).toBe(false);
    expect(fromThisMachine(h("192.168.1.4"))).toBe(false);
    expect(fromThisMachine(h(null))).toBe(false);
  });
});
