/**
 * Minimal typings for the Khronos `gltf-validator` npm package (it ships none); only what the
 * format tests use. Kept next to the formats code because only these tests import it.
 */
declare module "gltf-validator" {
  /** Issue summary of a validation report. */
  export interface ValidationIssues {
    numErrors: number;
    numWarnings: number;
    messages: { code: string; message: string; severity: number; pointer?: string }[];
  }
  /** Validation report (subset). */
  export interface ValidationReport {
    issues: ValidationIssues;
  }
  /** Validates a .glb or .gltf held in memory. */
  export function validateBytes(data: Uint8Array, options?: { uri?: string; maxIssues?: number }): Promise<ValidationReport>;
}
