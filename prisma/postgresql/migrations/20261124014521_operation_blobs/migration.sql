-- AlterTable
ALTER TABLE "Operation" ADD COLUMN     "blobParts" INTEGER;

-- CreateTable
CREATE TABLE "OperationBlob" (
    "seq" INTEGER NOT NULL,
    "part" INTEGER NOT NULL,
    "data" TEXT NOT NULL,

    CONSTRAINT "OperationBlob_pkey" PRIMARY KEY ("seq","part")
);
