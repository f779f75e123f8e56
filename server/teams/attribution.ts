/**
 * How an actor (./actor.ts) is recorded on what it changes, and read back. Operations, versions,
 * branches, transactions, recipe runs and transfers carry the same six denormalised columns
 * (`actorId`, `actorName`, `actorClient`, `actorClientName`, `actorToken`, `actorSession`), so a
 * row says who made it without a join and still does after the account is removed. Rows written
 * before attribution was recorded have them all null and read as "unknown".
 */
import { z } from "zod";
import { Prisma } from "../db/generated/sqlite/client";
import { currentCaller, describeActor, type Actor, type ClientKind } from "./actor";

/** The columns as stored. */
export interface ActorColumns {
  actorId: string | null;
  actorName: string | null;
  actorClient: string | null;
  actorClientName: string | null;
  actorToken: string | null;
  actorSession: string | null;
}

/** The columns recording `actor`. */
export function actorColumns(actor: Actor): ActorColumns {
  return {
    actorId: actor.userId, actorName: actor.name, actorClient: actor.client, actorClientName: actor.clientName ?? null,
    actorToken: actor.token?.name ?? null, actorSession: actor.session,
  };
}

/** The columns recording the current caller (what a call creates is theirs). */
export function callerColumns(): ActorColumns {
  return actorColumns(currentCaller().actor);
}

/** How tools show who: `by` is the line people read ("Ada via Claude Desktop"). */
export const actorOut = z.object({
  user_id: z.string().nullable().describe("The account (team mode); null in personal mode or when unknown."),
  name: z.string().describe('The person ("unknown" for entries recorded before attribution).'),
  client: z.string().nullable().describe("browser, http, cli, recipe, mcp, live or internal; null when unknown."),
  client_name: z.string().nullable().describe('The client\'s own name and version ("Claude Desktop 0.9.2", "blender 3.4.1").'),
  token: z.string().nullable().describe("The name of the personal access token used."),
  session: z.string().nullable().describe("The client session: a Studio tab, an MCP session, a CLI run, a live app's connection."),
  by: z.string().describe('"Ada via Claude Desktop", "Ben in Blender", "alex (browser)"; "unknown" for older entries.'),
});
export type ActorOut = z.infer<typeof actorOut>;

/** The public shape of a row's actor columns; all-null columns read as "unknown". */
export function readActor(row: Partial<ActorColumns>): ActorOut {
  if (!row.actorName) return { user_id: null, name: "unknown", client: null, client_name: null, token: null, session: null, by: "unknown" };
  const client = (row.actorClient ?? "internal") as ClientKind;
  const by = describeActor({
    name: row.actorName, client, clientName: row.actorClientName ?? undefined,
    token: row.actorToken ? { id: "", name: row.actorToken, scope: "read" } : undefined,
  });
  return {
    user_id: row.actorId ?? null, name: row.actorName, client: row.actorClient ?? null, client_name: row.actorClientName ?? null,
    token: row.actorToken ?? null, session: row.actorSession ?? null, by,
  };
}

/** A tool input field: only what this person did (their account id or name, as `by` shows it). */
export const personFilter = () =>
  z.string().min(1).max(200).describe("Only what this person did: their name (as shown in `actor.name`) or account id. \"unknown\" selects entries recorded before attribution.");

/** A Prisma `where` for `personFilter`'s value. */
export function personWhere(person: string) {
  return person === "unknown" ? { actorName: null } : { OR: [{ actorId: person }, { actorName: person }] };
}

/** The same as raw SQL on a table aliased `alias` (the operation log's hand-written queries). */
export function personSql(person: string, alias: string): Prisma.Sql {
  const t = Prisma.raw(`${alias}.`);
  return person === "unknown" ? Prisma.sql`${t}"actorName" IS NULL` : Prisma.sql`(${t}"actorId" = ${person} OR ${t}"actorName" = ${person})`;
}

/** The actor columns in a SELECT list of a table aliased `alias`. */
export function actorSelectSql(alias: string): Prisma.Sql {
  return Prisma.raw(["actorId", "actorName", "actorClient", "actorClientName", "actorToken", "actorSession"].map((c) => `${alias}."${c}"`).join(", "));
}
