-- CreateTable
CREATE TABLE "Version" (
    "number" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "branch" TEXT NOT NULL,
    "parent" INTEGER,
    "root" TEXT NOT NULL,
    "objects" INTEGER NOT NULL,
    "changes" INTEGER NOT NULL,
    "auto" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Branch" (
    "name" TEXT NOT NULL PRIMARY KEY,
    "head" INTEGER,
    "base" INTEGER,
    "workRoot" TEXT NOT NULL,
    "workSeq" INTEGER NOT NULL DEFAULT 0,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "SnapshotObject" (
    "hash" TEXT NOT NULL PRIMARY KEY,
    "data" TEXT NOT NULL,
    "refs" INTEGER NOT NULL DEFAULT 0,
    "children" TEXT NOT NULL
);

-- CreateIndex
CREATE INDEX "Version_branch_number_idx" ON "Version"("branch", "number");

-- CreateIndex
CREATE INDEX "Version_parent_idx" ON "Version"("parent");
