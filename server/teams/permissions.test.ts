// Invariant: one check, from the registry: a tool's declared permission against the caller's
// role capped by their token's scope; refusals are 403 FORBIDDEN naming the role needed.
import { describe, expect, it } from "vitest";
import { allTools, findTool } from "../tools";
import { toolPermission } from "../tools/define-tool";
import { withCaller, type Actor, type Role } from "./actor";
import { authorize } from "./permissions";

const actor = (role: Role, scope?: "read" | "write" | "admin"): Actor => ({
  userId: "u1", name: "Ben", role, client: "http", session: "s", ...(scope ? { token: { id: "t1", name: "ci", scope } } : {}),
});
const attempt = (a: Actor, tool: string) => {
  try {
    withCaller({ source: "http", actor: a }, () => authorize(findTool(tool)!));
    return "allowed";
  } catch (e) {
    return (e as { status: number; message: string }).status === 403 ? (e as Error).message : String(e);
  }
};

describe("authorize", () => {
  it("lets each role do what its tools declare", () => {
    for (const tool of allTools()) {
      const need = toolPermission(tool);
      expect([tool.name, attempt(actor("owner"), tool.name)]).toEqual([tool.name, "allowed"]);
      expect([tool.name, attempt(actor("editor"), tool.name) === "allowed"]).toEqual([tool.name, need !== "admin"]);
      expect([tool.name, attempt(actor("viewer"), tool.name) === "allowed"]).toEqual([tool.name, need === "read"]);
    }
  });

  it("names the role needed and the caller's role", () => {
    expect(attempt(actor("viewer"), "create_gameobject")).toBe("create_gameobject needs the editor role; Ben is a viewer.");
    expect(attempt(actor("editor"), "delete_version")).toBe("delete_version needs the owner role; Ben is an editor.");
  });

  it("caps the role by the token's scope", () => {
    expect(attempt(actor("owner", "read"), "create_gameobject")).toBe('create_gameobject needs the editor role and a token with the write scope; the token "ci" has the read scope.');
    expect(attempt(actor("owner", "write"), "delete_version")).toContain("admin scope");
    expect(attempt(actor("owner", "admin"), "delete_version")).toBe("allowed");
  });

  it("declares admin for deleting versions and for the owner's team tools, read for self-service tokens", () => {
    const admin = allTools().filter((t) => toolPermission(t) === "admin").map((t) => t.name).sort();
    expect(admin).toEqual(["add_user", "delete_version", "get_audit_log", "invite_user", "list_users", "remove_user", "reset_password", "set_user_role"]);
    for (const name of ["whoami", "create_token", "list_tokens", "revoke_token"]) expect(toolPermission(findTool(name)!)).toBe("read");
  });
});
