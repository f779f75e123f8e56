import { describe, expect, it } from "vitest";
import { asNativeWhenLoopback } from "./http";
import { grantableScopes, listOf, mcpChallenge, permissionOfScopes, protectedResourceMetadata } from "./oauth";

describe("MCP OAuth helpers", () => {
  it("a viewer grants read only; an editor or owner grants what was asked", () => {
    expect(grantableScopes("viewer", ["read", "write", "offline_access"])).toEqual(["read", "offline_access"]);
    expect(grantableScopes("editor", ["read", "write"])).toEqual(["read", "write"]);
    expect(permissionOfScopes(["read", "write"])).toBe("write");
    expect(permissionOfScopes(["read", "offline_access"])).toBe("read");
    expect(permissionOfScopes([])).toBe("read");
  });

  it("reads list columns from SQLite's JSON text and PostgreSQL's arrays, and nothing else", () => {
    expect(listOf('["http://127.0.0.1:8080/mcp"]')).toEqual(["http://127.0.0.1:8080/mcp"]);
    expect(listOf(["a", 1, "b"])).toEqual(["a", "b"]);
    for (const v of [null, undefined, "", "not json", '{"a":1}', 7]) expect(listOf(v)).toEqual([]);
  });

  it("the challenge and the metadata name one resource and one issuer", () => {
    expect(mcpChallenge("https://kiln.example.com")).toBe(
      'Bearer realm="kiln", resource_metadata="https://kiln.example.com/.well-known/oauth-protected-resource/mcp", scope="read write"',
    );
    expect(protectedResourceMetadata("https://kiln.example.com")).toMatchObject({
      resource: "https://kiln.example.com/mcp", authorization_servers: ["https://kiln.example.com/api/auth"],
    });
  });

  it("a registration with only http loopback redirects and no application_type is a native app's; others pass as sent", () => {
    const native = (uris: string[], extra: Record<string, unknown> = {}) => JSON.parse(asNativeWhenLoopback(JSON.stringify({ redirect_uris: uris, ...extra })));
    expect(native(["http://localhost:33418/callback"]).application_type).toBe("native");
    expect(native(["http://127.0.0.1/cb", "http://[::1]:9/cb"]).application_type).toBe("native");
    expect(native(["http://localhost:1/cb", "https://app.example/cb"]).application_type).toBeUndefined();
    expect(native(["http://localhost.evil.example/cb"]).application_type).toBeUndefined();
    expect(native(["http://localhost:1/cb"], { application_type: "web" }).application_type).toBe("web");
    expect(asNativeWhenLoopback("not json")).toBe("not json");
    expect(asNativeWhenLoopback("[1]")).toBe("[1]");
  });
});
