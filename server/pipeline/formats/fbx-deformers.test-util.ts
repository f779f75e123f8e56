/** Test helper: "<node name> <kind>" of every object of a binary FBX (e.g. "Deformer Skin", "Model LimbNode"). */
import { readFbxBinary, text } from "./fbx-binary";

export function readBinary(bytes: Uint8Array): string[] {
  const objects = readFbxBinary(bytes).nodes.find((n) => n.name === "Objects");
  return (objects?.children ?? []).map((n) => `${n.name} ${text(n.properties[2])}`);
}
