/**
 * The `kiln` command line (bin/kiln.js starts the HTTP service itself when given no arguments).
 * Each command lives in its own module and is loaded only when used, so `kiln --help` is instant.
 */
export const USAGE = `Usage:
  kiln                                   serve the tools over HTTP (http://127.0.0.1:8080)
  kiln serve [--team]                    the same; --team: everyone signs in (docs/teams.md)
  kiln --run-recipe <file> [--var name=value]... [--json] [--server <url>]
                                         run a recipe file; exit 0 succeeded, 1 failed, 2 invalid
  kiln mcp                               serve the tools over MCP on stdin/stdout
  kiln blender [--background] [--script FILE]... [FILE.blend]
                                         start Blender connected live to this project
  kiln godot [--headless] [--driver FILE] [PROJECT_DIR]
                                         start the Godot 3 editor connected live to this project
  kiln bridge-token                      print the token live applications connect with
  kiln users list|add|remove|set-role|reset-password ...
                                         the team's members (kiln users --help)
  kiln token create|list|revoke ...      personal access tokens (kiln token --help)
  kiln --help                            this text

Environment: PORT, HOST, KILN_HOME, DATABASE_URL, KILN_TOKEN, KILN_AUTH (see README.md).`;

/** Runs a command; resolves to the process exit code. */
export async function main(args: string[]): Promise<number> {
  if ((args[0] === "users" || args[0] === "token") && (args.includes("--help") || args.includes("-h"))) {
    const { TOKEN_USAGE, USERS_USAGE } = await import("./teams");
    console.log(args[0] === "users" ? USERS_USAGE : TOKEN_USAGE);
    return 0;
  }
  if (args.includes("--help") || args.includes("-h") || args[0] === "help") {
    console.log(USAGE);
    return 0;
  }
  if (args.includes("--run-recipe")) {
    const { runRecipeCommand } = await import("./run-recipe");
    return runRecipeCommand(args);
  }
  if (args[0] === "mcp") {
    const { mcpCommand } = await import("./mcp");
    return mcpCommand(args.slice(1));
  }
  if (args[0] === "blender") {
    const { blenderCommand } = await import("./blender");
    return blenderCommand(args.slice(1));
  }
  if (args[0] === "godot") {
    const { godotCommand } = await import("./godot");
    return godotCommand(args.slice(1));
  }
  if (args[0] === "users") {
    const { usersCommand } = await import("./teams");
    return usersCommand(args.slice(1));
  }
  if (args[0] === "token") {
    const { tokenCommand } = await import("./teams");
    return tokenCommand(args.slice(1));
  }
  if (args[0] === "bridge-token") {
    const { bridgeTokenCommand } = await import("./blender");
    return bridgeTokenCommand();
  }
  console.error(`kiln: unknown command "${args.join(" ")}"\n\n${USAGE}`);
  return 2;
}
