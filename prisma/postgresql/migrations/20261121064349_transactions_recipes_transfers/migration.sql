-- CreateTable
CREATE TABLE "Transaction" (
    "id" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "branch" TEXT NOT NULL,
    "startSeq" INTEGER NOT NULL,
    "rollbackOnError" BOOLEAN NOT NULL DEFAULT false,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" TIMESTAMP(3),
    "endSeq" INTEGER,
    "reason" TEXT,

    CONSTRAINT "Transaction_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "RecipeRun" (
    "id" TEXT NOT NULL,
    "recipe" TEXT NOT NULL,
    "source" TEXT,
    "path" TEXT,
    "status" TEXT NOT NULL,
    "variables" TEXT NOT NULL,
    "steps" TEXT NOT NULL,
    "transactionId" TEXT,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "durationMs" INTEGER,

    CONSTRAINT "RecipeRun_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "Transfer" (
    "id" TEXT NOT NULL,
    "sourceApp" TEXT NOT NULL,
    "targetApp" TEXT NOT NULL,
    "asset" TEXT NOT NULL,
    "format" TEXT NOT NULL,
    "options" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "filePath" TEXT,
    "bytes" INTEGER,
    "sha256" TEXT,
    "imported" TEXT,
    "warnings" TEXT NOT NULL DEFAULT '[]',
    "error" TEXT,
    "durationMs" INTEGER,
    "startedAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Transfer_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE INDEX "Transaction_status_idx" ON "Transaction"("status");

-- CreateIndex
CREATE INDEX "RecipeRun_recipe_startedAt_idx" ON "RecipeRun"("recipe", "startedAt");

-- CreateIndex
CREATE INDEX "RecipeRun_startedAt_idx" ON "RecipeRun"("startedAt");

-- CreateIndex
CREATE INDEX "Transfer_startedAt_idx" ON "Transfer"("startedAt");
