-- CreateSchema
CREATE SCHEMA IF NOT EXISTS "public";

-- CreateTable
CREATE TABLE "Operation" (
    "seq" INTEGER NOT NULL,
    "branch" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'tool',
    "tool" TEXT NOT NULL,
    "app" TEXT,
    "params" TEXT NOT NULL,
    "changes" TEXT NOT NULL,
    "transactionId" TEXT,
    "createdAt" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "Operation_pkey" PRIMARY KEY ("seq")
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL,
    "value" TEXT NOT NULL,

    CONSTRAINT "Setting_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "Operation_branch_seq_idx" ON "Operation"("branch", "seq");

-- CreateIndex
CREATE INDEX "Operation_transactionId_idx" ON "Operation"("transactionId");
