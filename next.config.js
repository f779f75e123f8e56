/** @type {import('next').NextConfig} */
const nextConfig = {
  // Separate build folders let several checkouts' test runs build side by side.
  distDir: process.env.KILN_NEXT_DIST || ".next",
  // Native and server-only packages are loaded by Node at run time, not bundled (piscina starts
  // its own worker script from node_modules, and ours from the source tree).
  serverExternalPackages: ["better-sqlite3", "@prisma/adapter-better-sqlite3", "@prisma/adapter-pg", "pg", "pngjs", "piscina"],
  poweredByHeader: false,
  // `npm run typecheck` checks types (it is part of `npm test`); the build need not do it twice.
  typescript: { ignoreBuildErrors: true },
  reactStrictMode: true,
};
export default nextConfig;
