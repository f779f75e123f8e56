-- AlterTable
ALTER TABLE "Transfer" ADD COLUMN     "stage" TEXT;
