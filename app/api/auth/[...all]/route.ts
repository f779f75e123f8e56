/** `/api/auth/*`: signing in and out in team mode (server/teams/http.ts; better-auth's handler). */
import { handleAuthRequest } from "@/server/teams/http";

export const dynamic = "force-dynamic";

export { handleAuthRequest as GET, handleAuthRequest as POST };
