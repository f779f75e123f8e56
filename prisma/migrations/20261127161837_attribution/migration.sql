-- AlterTable
ALTER TABLE "Branch" ADD COLUMN "actorClient" TEXT;
ALTER TABLE "Branch" ADD COLUMN "actorClientName" TEXT;
ALTER TABLE "Branch" ADD COLUMN "actorId" TEXT;
ALTER TABLE "Branch" ADD COLUMN "actorName" TEXT;
ALTER TABLE "Branch" ADD COLUMN "actorSession" TEXT;
ALTER TABLE "Branch" ADD COLUMN "actorToken" TEXT;

-- AlterTable
ALTER TABLE "Operation" ADD COLUMN "actorClient" TEXT;
ALTER TABLE "Operation" ADD COLUMN "actorClientName" TEXT;
ALTER TABLE "Operation" ADD COLUMN "actorId" TEXT;
ALTER TABLE "Operation" ADD COLUMN "actorName" TEXT;
ALTER TABLE "Operation" ADD COLUMN "actorSession" TEXT;
ALTER TABLE "Operation" ADD COLUMN "actorToken" TEXT;

-- AlterTable
ALTER TABLE "RecipeRun" ADD COLUMN "actorClient" TEXT;
ALTER TABLE "RecipeRun" ADD COLUMN "actorClientName" TEXT;
ALTER TABLE "RecipeRun" ADD COLUMN "actorId" TEXT;
ALTER TABLE "RecipeRun" ADD COLUMN "actorName" TEXT;
ALTER TABLE "RecipeRun" ADD COLUMN "actorSession" TEXT;
ALTER TABLE "RecipeRun" ADD COLUMN "actorToken" TEXT;

-- AlterTable
ALTER TABLE "Transaction" ADD COLUMN "actorClient" TEXT;
ALTER TABLE "Transaction" ADD COLUMN "actorClientName" TEXT;
ALTER TABLE "Transaction" ADD COLUMN "actorId" TEXT;
ALTER TABLE "Transaction" ADD COLUMN "actorName" TEXT;
ALTER TABLE "Transaction" ADD COLUMN "actorSession" TEXT;
ALTER TABLE "Transaction" ADD COLUMN "actorToken" TEXT;

-- AlterTable
ALTER TABLE "Transfer" ADD COLUMN "actorClient" TEXT;
ALTER TABLE "Transfer" ADD COLUMN "actorClientName" TEXT;
ALTER TABLE "Transfer" ADD COLUMN "actorId" TEXT;
ALTER TABLE "Transfer" ADD COLUMN "actorName" TEXT;
ALTER TABLE "Transfer" ADD COLUMN "actorSession" TEXT;
ALTER TABLE "Transfer" ADD COLUMN "actorToken" TEXT;

-- AlterTable
ALTER TABLE "Version" ADD COLUMN "actorClient" TEXT;
ALTER TABLE "Version" ADD COLUMN "actorClientName" TEXT;
ALTER TABLE "Version" ADD COLUMN "actorId" TEXT;
ALTER TABLE "Version" ADD COLUMN "actorName" TEXT;
ALTER TABLE "Version" ADD COLUMN "actorSession" TEXT;
ALTER TABLE "Version" ADD COLUMN "actorToken" TEXT;

-- CreateIndex
CREATE INDEX "Operation_actorName_idx" ON "Operation"("actorName");
