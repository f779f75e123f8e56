/** `POST /api/links`: use a one-time set-up, invitation or password-reset link (server/teams/http.ts). */
import { handleLinkRequest } from "@/server/teams/http";

export const dynamic = "force-dynamic";

export { handleLinkRequest as POST, handleLinkRequest as GET };
