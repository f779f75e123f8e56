/**
 * Size limits of a recipe (docs/recipes.md, "Limits"). Parsing YAML costs about 2 ms per KB on
 * the event loop, so these bound what one file can cost every client: 1,000 steps (the largest
 * fixture and bench recipe) in at most 256 KiB.
 */
export const MAX_RECIPE_STEPS = 1000;
