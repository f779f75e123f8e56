-- AlterTable
ALTER TABLE "Operation" ADD COLUMN "source" TEXT;
