/** `GET /events`: server-sent events of everything that changes in Kiln (server/api/events.ts). */
import { handleEvents } from "@/server/api/events";

export const dynamic = "force-dynamic";

export const GET = (req: Request) => handleEvents(req);
