-- CreateTable
CREATE TABLE "SoftLock" (
    "key" TEXT NOT NULL PRIMARY KEY,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "app" TEXT,
    "scene" TEXT,
    "holderId" TEXT,
    "holderName" TEXT NOT NULL,
    "client" TEXT NOT NULL,
    "clientName" TEXT,
    "session" TEXT NOT NULL,
    "since" DATETIME NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" DATETIME NOT NULL,
    "minutes" INTEGER NOT NULL DEFAULT 30
);

-- CreateIndex
CREATE INDEX "SoftLock_session_idx" ON "SoftLock"("session");

-- CreateIndex
CREATE INDEX "SoftLock_expiresAt_idx" ON "SoftLock"("expiresAt");
