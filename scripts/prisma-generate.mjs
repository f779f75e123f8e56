#!/usr/bin/env node
// Derives the PostgreSQL schema from prisma/schema.prisma and generates a Prisma client per
// provider (a Prisma 7 client serves one provider only). Runs offline: `prisma generate` needs
// no engine, but it looks for the schema engine binary unless told where one is.
import { execFileSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const root = join(dirname(fileURLToPath(import.meta.url)), "..");
const source = readFileSync(join(root, "prisma/schema.prisma"), "utf8");
const header = "// GENERATED from prisma/schema.prisma by scripts/prisma-generate.mjs. Do not edit.\n";
const pg = header + source
  .replace('provider = "sqlite"', 'provider = "postgresql"')
  .replace('output   = "../server/db/generated/sqlite"', 'output   = "../../server/db/generated/postgresql"');
mkdirSync(join(root, "prisma/postgresql"), { recursive: true });
writeFileSync(join(root, "prisma/postgresql/schema.prisma"), pg);

const env = { ...process.env, PRISMA_SCHEMA_ENGINE_BINARY: process.env.PRISMA_SCHEMA_ENGINE_BINARY ?? "/bin/false", CHECKPOINT_DISABLE: "1", PRISMA_HIDE_UPDATE_MESSAGE: "1" };
const prisma = join(root, "node_modules/prisma/build/index.js");
for (const schema of ["prisma/schema.prisma", "prisma/postgresql/schema.prisma"]) {
  execFileSync(process.execPath, [prisma, "generate", "--schema", schema], { cwd: root, env, stdio: ["ignore", "ignore", "inherit"] });
}
console.log("prisma: generated clients for sqlite and postgresql");
