-- CreateTable
CREATE TABLE "SoftLock" (
    "key" TEXT NOT NULL,
    "kind" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "app" TEXT,
    "scene" TEXT,
    "holderId" TEXT,
    "holderName" TEXT NOT NULL,
    "client" TEXT NOT NULL,
    "clientName" TEXT,
    "session" TEXT NOT NULL,
    "since" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "expiresAt" TIMESTAMP(3) NOT NULL,
    "minutes" INTEGER NOT NULL DEFAULT 30,

    CONSTRAINT "SoftLock_pkey" PRIMARY KEY ("key")
);

-- CreateIndex
CREATE INDEX "SoftLock_session_idx" ON "SoftLock"("session");

-- CreateIndex
CREATE INDEX "SoftLock_expiresAt_idx" ON "SoftLock"("expiresAt");
