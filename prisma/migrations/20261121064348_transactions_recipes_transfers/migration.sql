-- CreateTable
CREATE TABLE "Transaction" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "name" TEXT NOT NULL,
    "status" TEXT NOT NULL,
    "branch" TEXT NOT NULL,
    "startSeq" INTEGER NOT NULL,
    "rollbackOnError" BOOLEAN NOT NULL DEFAULT false,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "endedAt" DATETIME,
    "endSeq" INTEGER,
    "reason" TEXT
);

-- CreateTable
CREATE TABLE "RecipeRun" (
    "id" TEXT NOT NULL PRIMARY KEY,
    "recipe" TEXT NOT NULL,
    "source" TEXT,
    "path" TEXT,
    "status" TEXT NOT NULL,
    "variables" TEXT NOT NULL,
    "steps" TEXT NOT NULL,
    "transactionId" TEXT,
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "durationMs" INTEGER
);

-- CreateTable
CREATE TABLE "Transfer" (
    "id" TEXT NOT NULL PRIMARY KEY,
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
    "startedAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateIndex
CREATE INDEX "Transaction_status_idx" ON "Transaction"("status");

-- CreateIndex
CREATE INDEX "RecipeRun_recipe_startedAt_idx" ON "RecipeRun"("recipe", "startedAt");

-- CreateIndex
CREATE INDEX "RecipeRun_startedAt_idx" ON "RecipeRun"("startedAt");

-- CreateIndex
CREATE INDEX "Transfer_startedAt_idx" ON "Transfer"("startedAt");
