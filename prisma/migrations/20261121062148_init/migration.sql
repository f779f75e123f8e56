-- CreateTable
CREATE TABLE "Operation" (
    "seq" INTEGER NOT NULL PRIMARY KEY AUTOINCREMENT,
    "branch" TEXT NOT NULL,
    "kind" TEXT NOT NULL DEFAULT 'tool',
    "tool" TEXT NOT NULL,
    "app" TEXT,
    "params" TEXT NOT NULL,
    "changes" TEXT NOT NULL,
    "transactionId" TEXT,
    "createdAt" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP
);

-- CreateTable
CREATE TABLE "Setting" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "value" TEXT NOT NULL
);

-- CreateIndex
CREATE INDEX "Operation_branch_seq_idx" ON "Operation"("branch", "seq");

-- CreateIndex
CREATE INDEX "Operation_transactionId_idx" ON "Operation"("transactionId");
