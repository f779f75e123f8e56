/**
 * Custom properties (interchange `extras`) as FBX user properties: Properties70 entries flagged
 * "U", typed as Blender's FBX exporter writes them and its importer reads them (KString, int,
 * double, bool), so they arrive in Blender as custom properties of the object, mesh or material.
 * Values FBX has no type for (objects, arrays, null) are written as JSON text in a KString whose
 * label says so ("KilnJSON"): other tools see the text, Kiln reads the value back.
 */
import { child, childrenNamed, stringProperty, text, type FbxNode, type FbxProperty } from "./fbx-binary";
import type { InterchangeExtras } from "./interchange";

const JSON_LABEL = "KilnJSON";
const node = (name: string, properties: FbxProperty[]): FbxNode => ({ name, properties, children: [] });

/** Adds `extras` to a node's Properties70 (created if missing) as user properties. */
export function writeUserProperties(target: FbxNode, extras: InterchangeExtras | undefined): void {
  if (!extras || !Object.keys(extras).length) return;
  let props = child(target, "Properties70");
  if (!props) target.children.push((props = { name: "Properties70", properties: [], children: [] }));
  for (const [name, value] of Object.entries(extras)) {
    const head = (type: string, label: string) => [stringProperty(name), stringProperty(type), stringProperty(label), stringProperty("U")];
    let p: FbxProperty[];
    if (typeof value === "string") p = [...head("KString", ""), stringProperty(value)];
    else if (typeof value === "boolean") p = [...head("bool", ""), { type: "I", value: value ? 1 : 0 }];
    else if (typeof value === "number" && Number.isInteger(value) && Math.abs(value) <= 0x7fffffff) p = [...head("int", "Integer"), { type: "I", value }];
    else if (typeof value === "number") p = [...head("double", "Number"), { type: "D", value }];
    else p = [...head("KString", JSON_LABEL), stringProperty(JSON.stringify(value))];
    props.children.push(node("P", p));
  }
}

/** A node's user properties as extras (undefined when it has none); values that cannot be read are reported through `warn`. */
export function readUserProperties(source: FbxNode | undefined, what: string, warn: (m: string) => void): InterchangeExtras | undefined {
  const out: InterchangeExtras = {};
  for (const p of childrenNamed(child(source, "Properties70"), "P")) {
    if (!text(p.properties[3]).includes("U")) continue;
    const name = text(p.properties[0]), type = text(p.properties[1]), values = p.properties.slice(4);
    const value = values[0];
    const bad = () => warn(`fbx: custom property "${name}" of ${what} dropped: its value is not readable`);
    if (type === "KString") {
      if (text(p.properties[2]) !== JSON_LABEL) out[name] = text(value);
      else
        try {
          out[name] = JSON.parse(text(value));
        } catch {
          bad();
        }
    } else if (type === "bool" || type === "Bool") out[name] = Number(value?.value) !== 0;
    else {
      const numbers = values.map((v) => (typeof v.value === "number" || typeof v.value === "bigint" ? Number(v.value) : NaN));
      if (!numbers.length || !numbers.every(Number.isFinite)) bad();
      else out[name] = numbers.length === 1 || type === "enum" || type === "Enum" ? numbers[0] : numbers;
    }
  }
  return Object.keys(out).length ? out : undefined;
}
