/** How many versions the graph shows at first (and adds per "Show older"); a plain module, so the server page can read it. */
export const SHOWN = 100;
