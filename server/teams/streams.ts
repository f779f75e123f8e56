/**
 * The long-lived connections a credential holds open: `/events` streams and `/bridge` sockets
 * (MCP over /mcp is stateless here: each POST is checked on its own). Revoking a token, ending a
 * session or removing a member closes what they hold at once, instead of leaving a stream
 * running until it next reconnects.
 */
import type { Actor } from "./actor";

/** What a connection was opened with. */
export interface StreamOwner {
  userId: string | null;
  tokenId?: string;
  /** The browser session (better-auth's session id), for cookie-authenticated streams. */
  sessionId?: string;
}

interface Entry { owner: StreamOwner; close: (reason: string) => void }

export class OpenStreams {
  private readonly entries = new Set<Entry>();

  /** Registers a connection; call the returned function when it closes by itself. */
  add(owner: StreamOwner, close: (reason: string) => void): () => void {
    const entry: Entry = { owner, close };
    this.entries.add(entry);
    return () => this.entries.delete(entry);
  }

  /** Closes every connection `match` selects; returns how many. */
  closeWhere(match: (owner: StreamOwner) => boolean, reason: string): number {
    let n = 0;
    for (const entry of [...this.entries]) {
      if (!match(entry.owner)) continue;
      this.entries.delete(entry);
      n++;
      try {
        entry.close(reason);
      } catch {
        // already closed by the other side
      }
    }
    return n;
  }

  closeToken(tokenId: string, reason = "the token was revoked"): number {
    return this.closeWhere((o) => o.tokenId === tokenId, reason);
  }

  closeSession(sessionId: string, reason = "the session ended"): number {
    return this.closeWhere((o) => o.sessionId === sessionId, reason);
  }

  closeUser(userId: string, reason: string): number {
    return this.closeWhere((o) => o.userId === userId, reason);
  }

  get size(): number {
    return this.entries.size;
  }
}

/** The owner of a connection opened by `actor` (with the browser session it came with, if any). */
export function streamOwner(actor: Actor, sessionId?: string): StreamOwner {
  return { userId: actor.userId, ...(actor.token ? { tokenId: actor.token.id } : {}), ...(sessionId ? { sessionId } : {}) };
}
