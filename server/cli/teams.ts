/**
 * `kiln users ...` and `kiln token ...`: the team's members and personal access tokens from the
 * command line (docs/teams.md, "The command line"). Each command is a call of the registry's
 * team tools, so the same roles, rules and audit log apply as over HTTP.
 *
 * Where it runs, as `kiln --run-recipe` does: on the Kiln service that serves this project when
 * one runs (or `--server URL`), else in-process on the project's data. How it authenticates:
 * with `KILN_TOKEN` when set (a personal access token: the call is that person's), otherwise with
 * the operator credential in `.kiln/team.json` (mode 0600), which the service accepts from this
 * machine only and which acts as an owner. In-process, without KILN_TOKEN, the operator is the
 * caller too: whoever can read the project's files can already change its database.
 */
import { readFileSync } from "node:fs";
import { loadConfig } from "../config";
import { thisCommand, tryClaimProject } from "../ownership/owner";
import { readTeamFile } from "../teams/team-file";
import { toolClient } from "./tool-client";

export const USERS_USAGE = `Usage:
  kiln users list
  kiln users add <email> --name NAME --role viewer|editor|owner [--password-stdin]
                 without --password-stdin, prints a one-time invitation link instead
  kiln users remove <email|id>
  kiln users set-role <email|id> viewer|editor|owner
  kiln users reset-password <email|id> [--password-stdin]
                 without --password-stdin, prints a one-time link to choose a new password`;

export const TOKEN_USAGE = `Usage:
  kiln token create --name NAME [--scope read|write|admin] [--expires 30d|12h|1y|never] [--user EMAIL]
                 prints the token (shown once) on stdout
  kiln token list [--all] [--user EMAIL]
  kiln token revoke <id>`;

const COMMON = `Options: --server URL (a running Kiln; default: the one serving this project), --json.
Credentials: KILN_TOKEN (a personal access token), else the operator credential in .kiln/team.json.`;

class UsageError extends Error {}

interface Parsed { positional: string[]; flags: Map<string, string | true> }

const VALUE_FLAGS = new Set(["--name", "--role", "--scope", "--expires", "--user", "--server"]);
const BOOLEAN_FLAGS = new Set(["--password-stdin", "--all", "--json"]);

function parse(args: string[]): Parsed {
  const positional: string[] = [];
  const flags = new Map<string, string | true>();
  for (let i = 0; i < args.length; i++) {
    const [flag, inline] = args[i].startsWith("--") && args[i].includes("=") ? [args[i].slice(0, args[i].indexOf("=")), args[i].slice(args[i].indexOf("=") + 1)] : [args[i], undefined];
    if (VALUE_FLAGS.has(flag)) {
      const value = inline ?? args[++i];
      if (value === undefined) throw new UsageError(`${flag} needs a value`);
      flags.set(flag, value);
    } else if (BOOLEAN_FLAGS.has(flag) && inline === undefined) flags.set(flag, true);
    else if (flag.startsWith("-")) throw new UsageError(`unknown option "${args[i]}"`);
    else positional.push(args[i]);
  }
  return { positional, flags };
}

const str = (p: Parsed, flag: string) => {
  const v = p.flags.get(flag);
  return typeof v === "string" ? v : undefined;
};

function need(value: string | undefined, what: string): string {
  if (!value) throw new UsageError(`${what} is required`);
  return value;
}

/** The password given on standard input (its first line), for scripts: never on the command line. */
function passwordFromStdin(): string {
  const text = readFileSync(0, "utf8").split(/\r?\n/)[0];
  if (!text) throw new UsageError("--password-stdin: standard input is empty");
  return text;
}

type Call = (tool: string, params: Record<string, unknown>) => Promise<unknown>;

/** Runs `fn` with a way to call tools: on the service, or in-process. Resolves to an exit code. */
async function withTools(server: string | undefined, fn: (call: Call) => Promise<void>): Promise<number> {
  const config = loadConfig();
  let url = server;
  if (!url) {
    const claim = await tryClaimProject(config, thisCommand());
    if ("error" in claim) {
      if (!claim.owner?.url) {
        console.error(`kiln: ${claim.error.message}`);
        return 3;
      }
      url = claim.owner.url;
    }
  }
  if (url) {
    const token = process.env.KILN_TOKEN || readTeamFile(config.home)?.operator;
    const client = toolClient(url, token);
    try {
      await fn((tool, params) => client.invoke(tool, params));
      return 0;
    } catch (e) {
      return report(e, url);
    } finally {
      client.close();
    }
  }
  const { getKiln, stopKiln } = await import("../runtime");
  const { callTool } = await import("../api/trpc");
  const { withCaller } = await import("../teams/actor");
  try {
    const kiln = await getKiln();
    const headers = new Headers({ "x-kiln-client": "cli", "x-kiln-peer": "127.0.0.1", ...(process.env.KILN_TOKEN ? { authorization: `Bearer ${process.env.KILN_TOKEN}` } : {}) });
    const resolved = process.env.KILN_TOKEN ? await kiln.teams.credentials.resolve(headers, "cli") : { caller: { source: "cli" as const, actor: kiln.teams.credentials.operatorActor("cli") } };
    if ("refusal" in resolved) throw { code: resolved.refusal.code, message: resolved.refusal.message };
    await fn((tool, params) => withCaller(resolved.caller, () => callTool({ kiln }, tool, params)));
    return 0;
  } catch (e) {
    const { toErrorBody } = await import("../api/envelope");
    return report(toErrorBody(e).error, "in-process");
  } finally {
    await stopKiln();
  }
}

function report(e: unknown, where: string): number {
  const error = e as { code?: string; message?: string; cause?: { code?: string } };
  const code = error.code === "SERVICE_UNREACHABLE" ? 3 : 1;
  console.error(`kiln: ${error.message ?? String(e)}${error.code && error.code !== "SERVICE_UNREACHABLE" ? ` (${error.code}, ${where})` : ""}`);
  return code;
}

const table = (rows: string[][]) => {
  const widths = rows[0].map((_, c) => Math.max(...rows.map((r) => r[c].length)));
  return rows.map((r) => r.map((cell, c) => cell.padEnd(widths[c])).join("  ").trimEnd()).join("\n");
};

/** `kiln users ...`; resolves to the exit code. */
export async function usersCommand(args: string[]): Promise<number> {
  let p: Parsed;
  try {
    p = parse(args);
    if (!["list", "add", "remove", "set-role", "reset-password"].includes(p.positional[0] ?? "")) throw new UsageError(p.positional[0] ? `unknown command "users ${p.positional[0]}"` : "which users command?");
  } catch (e) {
    console.error(`kiln: ${(e as Error).message}\n\n${USERS_USAGE}\n${COMMON}`);
    return 2;
  }
  const [sub, who, extra] = p.positional;
  const json = p.flags.has("--json");
  const print = (value: unknown, text: string) => console.log(json ? JSON.stringify(value, null, 2) : text);
  try {
    if (sub === "list") {
      return await withTools(str(p, "--server"), async (call) => {
        const { users } = (await call("list_users", {})) as { users: { id: string; name: string; email: string; role: string; tokens: number }[] };
        print(users, table([["EMAIL", "NAME", "ROLE", "TOKENS", "ID"], ...users.map((u) => [u.email, u.name, u.role, String(u.tokens), u.id])]));
      });
    }
    const target = need(who, sub === "add" ? "the email" : "the member (email or id)");
    if (sub === "add") {
      const role = need(str(p, "--role"), "--role");
      const name = need(str(p, "--name"), "--name");
      const password = p.flags.has("--password-stdin") ? passwordFromStdin() : undefined;
      return await withTools(str(p, "--server"), async (call) => {
        if (password !== undefined) {
          const { user } = (await call("add_user", { email: target, name, role, password })) as { user: { email: string; role: string } };
          print(user, `Added ${user.email} (${user.role}); they can sign in now.`);
        } else {
          const link = (await call("invite_user", { email: target, name, role })) as { url: string; expires_at: string; mailed: boolean };
          print(link, `${link.url}\nOne-time invitation for ${target} (${role}), valid until ${link.expires_at}${link.mailed ? "; also mailed" : ""}.`);
        }
      });
    }
    if (sub === "remove")
      return await withTools(str(p, "--server"), async (call) => {
        const { removed } = (await call("remove_user", { user: target })) as { removed: { email: string } };
        print(removed, `Removed ${removed.email}: their sessions and tokens have ended.`);
      });
    if (sub === "set-role")
      return await withTools(str(p, "--server"), async (call) => {
        const result = (await call("set_user_role", { user: target, role: need(extra, "the role") })) as { user: { email: string; role: string }; previous_role: string };
        print(result, `${result.user.email}: ${result.previous_role} -> ${result.user.role}`);
      });
    const password = p.flags.has("--password-stdin") ? passwordFromStdin() : undefined;
    return await withTools(str(p, "--server"), async (call) => {
      const result = (await call("reset_password", { user: target, ...(password !== undefined ? { password } : {}) })) as { link: { url: string; expires_at: string } | null };
      print(result, result.link ? `${result.link.url}\nOne-time link to choose a new password, valid until ${result.link.expires_at}.` : `Password set; ${target}'s sessions have ended.`);
    });
  } catch (e) {
    if (!(e instanceof UsageError)) throw e;
    console.error(`kiln: ${e.message}\n\n${USERS_USAGE}`);
    return 2;
  }
}

/** `kiln token ...`; resolves to the exit code. */
export async function tokenCommand(args: string[]): Promise<number> {
  let p: Parsed;
  try {
    p = parse(args);
    if (!["create", "list", "revoke"].includes(p.positional[0] ?? "")) throw new UsageError(p.positional[0] ? `unknown command "token ${p.positional[0]}"` : "which token command?");
    if (p.positional[0] === "create") need(str(p, "--name"), "--name");
    if (p.positional[0] === "revoke") need(p.positional[1], "the token's id");
  } catch (e) {
    console.error(`kiln: ${(e as Error).message}\n\n${TOKEN_USAGE}\n${COMMON}`);
    return 2;
  }
  const [sub, id] = p.positional;
  const json = p.flags.has("--json");
  const user = str(p, "--user");
  return withTools(str(p, "--server"), async (call) => {
    if (sub === "create") {
      const created = (await call("create_token", {
        name: str(p, "--name"), ...(str(p, "--scope") ? { scope: str(p, "--scope") } : {}),
        ...(str(p, "--expires") ? { expires: str(p, "--expires") } : {}), ...(user ? { user } : {}),
      })) as { token: string; id: string; name: string; scope: string; expires_at: string | null; user: { name: string } };
      if (json) console.log(JSON.stringify(created, null, 2));
      else {
        console.log(created.token);
        console.error(`Token "${created.name}" for ${created.user.name} (id ${created.id}, scope ${created.scope}, ${created.expires_at ? `expires ${created.expires_at}` : "never expires"}). It is shown this once.`);
      }
    } else if (sub === "list") {
      const { tokens } = (await call("list_tokens", { ...(p.flags.has("--all") ? { all: true } : {}), ...(user ? { user } : {}) })) as {
        tokens: { id: string; name: string; scope: string; start: string | null; user: { name: string }; expires_at: string | null; last_used_at: string | null }[];
      };
      if (json) console.log(JSON.stringify(tokens, null, 2));
      else console.log(table([["ID", "NAME", "SCOPE", "HOLDER", "STARTS", "EXPIRES", "LAST USED"], ...tokens.map((t) => [t.id, t.name, t.scope, t.user.name, `${t.start ?? ""}…`, t.expires_at ?? "never", t.last_used_at ?? "never"])]));
    } else {
      const revoked = (await call("revoke_token", { id })) as { name: string };
      console.log(json ? JSON.stringify(revoked, null, 2) : `Revoked "${revoked.name}": its next request is refused.`);
    }
  });
}
