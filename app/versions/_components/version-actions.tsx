"use client";
/**
 * What can be done with the selected row: save the working state; restore, preview, compare,
 * branch from or delete a version. Restore asks first with what it will change (restore.tsx),
 * delete with the browser's own confirm; every version or branch change is off, with the reason
 * shown, while a transaction is open.
 */
import Link from "next/link";
import { useId, useState } from "react";
import { attempt } from "@/app/_lib/use-load";
import { useStudioApi, type Version } from "@/app/_lib/studio-api";
import { compareHref } from "../_lib/links";
import { GateNote, GatedButton, RestoreButton, type Gate } from "./restore";

export interface ActionsProps {
  selected: string;
  /** The selected version's row (absent for "working", or a version not listed). */
  version?: Version;
  gate: Gate;
  onChanged(message: string): void;
}

export function VersionActions({ selected, version, gate, onChanged }: ActionsProps) {
  const api = useStudioApi();
  const note = useId();
  const [problem, setProblem] = useState<string>();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [branch, setBranch] = useState("");
  const act = async (action: () => Promise<unknown>, done: string) => {
    if (await attempt(action, setProblem)) onChanged(done);
  };
  if (selected === "working") {
    return (
      <form className="version-actions" aria-label="Save the working state" onSubmit={(e) => {
        e.preventDefault();
        void act(() => api.write("save_version", { name, description }), `Saved "${name}"`).then(() => { setName(""); setDescription(""); });
      }}>
        <h3>Save the working state as a version</h3>
        <div className="row">
          <input aria-label="Version name" placeholder="Version name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} data-testid="save-name" />
          <input aria-label="Description" placeholder="Description (optional)" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={5000} />
          <GatedButton gate={gate} noteId={note} type="submit" className="primary" disabled={!name.trim()} data-testid="save-version">Save version</GatedButton>
        </div>
        <GateNote gate={gate} id={note} />
        {problem && <p className="notice error" role="alert">{problem}</p>}
      </form>
    );
  }
  const id = selected;
  return (
    <div className="version-actions" aria-label={`Actions on ${id}`}>
      <h3>{id}{version ? <span className="muted"> · {version.name}</span> : null}</h3>
      <div className="row">
        <Link className="button-like" href={`/versions/${id}`} prefetch={false} data-testid="preview-link">Preview</Link>
        <Link className="button-like" href={compareHref(id, "working")} prefetch={false} data-testid="compare-working">Compare with working</Link>
        {version?.parent && <Link className="button-like" href={compareHref(version.parent, id)} prefetch={false}>Changes since {version.parent}</Link>}
      </div>
      <div className="row">
        <RestoreButton id={id} name={version?.name} gate={gate} noteId={note} onRestored={onChanged} />
        <GatedButton gate={gate} noteId={note} needs="owner" className="danger" onClick={() => window.confirm(`Delete ${id}? Its children are re-parented to its parent; this cannot be undone.`) && void act(() => api.write("delete_version", { version_id: id }), `Deleted ${id}`)} data-testid="delete-version">Delete…</GatedButton>
      </div>
      <form className="row" onSubmit={(e) => {
        e.preventDefault();
        void act(() => api.write("create_branch", { name: branch, from_version: id }), `Branch "${branch}" created from ${id}`).then(() => setBranch(""));
      }}>
        <input aria-label={`New branch from ${id}`} placeholder="New branch name" value={branch} onChange={(e) => setBranch(e.target.value)} required maxLength={100} data-testid="branch-name" />
        <GatedButton gate={gate} noteId={note} type="submit" disabled={!branch.trim()} data-testid="create-branch">Branch from {id}</GatedButton>
      </form>
      <GateNote gate={gate} id={note} />
      {problem && <p className="notice error" role="alert">{problem}</p>}
    </div>
  );
}
