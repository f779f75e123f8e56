-- AlterTable
ALTER TABLE "Branch" ADD COLUMN     "actorClient" TEXT,
ADD COLUMN     "actorClientName" TEXT,
ADD COLUMN     "actorId" TEXT,
ADD COLUMN     "actorName" TEXT,
ADD COLUMN     "actorSession" TEXT,
ADD COLUMN     "actorToken" TEXT;

-- AlterTable
ALTER TABLE "Operation" ADD COLUMN     "actorClient" TEXT,
ADD COLUMN     "actorClientName" TEXT,
ADD COLUMN     "actorId" TEXT,
ADD COLUMN     "actorName" TEXT,
ADD COLUMN     "actorSession" TEXT,
ADD COLUMN     "actorToken" TEXT;

-- AlterTable
ALTER TABLE "RecipeRun" ADD COLUMN     "actorClient" TEXT,
ADD COLUMN     "actorClientName" TEXT,
ADD COLUMN     "actorId" TEXT,
ADD COLUMN     "actorName" TEXT,
ADD COLUMN     "actorSession" TEXT,
ADD COLUMN     "actorToken" TEXT;

-- AlterTable
ALTER TABLE "Transaction" ADD COLUMN     "actorClient" TEXT,
ADD COLUMN     "actorClientName" TEXT,
ADD COLUMN     "actorId" TEXT,
ADD COLUMN     "actorName" TEXT,
ADD COLUMN     "actorSession" TEXT,
ADD COLUMN     "actorToken" TEXT;

-- AlterTable
ALTER TABLE "Transfer" ADD COLUMN     "actorClient" TEXT,
ADD COLUMN     "actorClientName" TEXT,
ADD COLUMN     "actorId" TEXT,
ADD COLUMN     "actorName" TEXT,
ADD COLUMN     "actorSession" TEXT,
ADD COLUMN     "actorToken" TEXT;

-- AlterTable
ALTER TABLE "Version" ADD COLUMN     "actorClient" TEXT,
ADD COLUMN     "actorClientName" TEXT,
ADD COLUMN     "actorId" TEXT,
ADD COLUMN     "actorName" TEXT,
ADD COLUMN     "actorSession" TEXT,
ADD COLUMN     "actorToken" TEXT;

-- CreateIndex
CREATE INDEX "Operation_actorName_idx" ON "Operation"("actorName");
