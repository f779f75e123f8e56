-- CreateTable
CREATE TABLE "Version" (
    "number" INTEGER NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "branch" TEXT NOT NULL,
    "parent" INTEGER,
    "root" TEXT NOT NULL,
    "objects" INTEGER NOT NULL,
    "changes" INTEGER NOT NULL,
    "auto" BOOLEAN NOT NULL DEFAULT false,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Version_pkey" PRIMARY KEY ("number")
);

-- CreateTable
CREATE TABLE "Branch" (
    "name" TEXT NOT NULL,
    "head" INTEGER,
    "base" INTEGER,
    "workRoot" TEXT NOT NULL,
    "workSeq" INTEGER NOT NULL DEFAULT 0,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Branch_pkey" PRIMARY KEY ("name")
);

-- CreateTable
CREATE TABLE "SnapshotObject" (
    "hash" TEXT NOT NULL,
    "data" TEXT NOT NULL,
    "refs" INTEGER NOT NULL DEFAULT 0,
    "children" TEXT NOT NULL,

    CONSTRAINT "SnapshotObject_pkey" PRIMARY KEY ("hash")
);

-- CreateIndex
CREATE INDEX "Version_branch_number_idx" ON "Version"("branch", "number");

-- CreateIndex
CREATE INDEX "Version_parent_idx" ON "Version"("parent");
