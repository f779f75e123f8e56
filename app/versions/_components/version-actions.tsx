"use client";
/**
 * What can be done with the selected row: save the working state; restore, branch from, compare
 * or delete a version. Restore and delete ask first (window.confirm: a native, keyboard-usable dialog).
 */
import { useState } from "react";
import { attempt } from "@/app/_lib/use-load";
import { useStudioApi } from "@/app/_lib/studio-api";
import { EditGate, useCanEdit } from "../../_lib/viewer";

export interface ActionsProps {
  selected: string;
  diff: { from: string; to: string };
  onDiff(next: { from: string; to: string }): void;
  onChanged(message: string): void;
}

export function VersionActions({ selected, diff, onDiff, onChanged }: ActionsProps) {
  const api = useStudioApi();
  const [problem, setProblem] = useState<string>();
  const [name, setName] = useState("");
  const [description, setDescription] = useState("");
  const [branch, setBranch] = useState("");
  const canEdit = useCanEdit();
  const act = async (action: () => Promise<unknown>, done: string) => {
    if (await attempt(action, setProblem)) onChanged(done);
  };
  if (selected === "working") {
    return (
      <EditGate label="Save a version (read-only)"><form className="version-actions" aria-label="Save the working state" onSubmit={(e) => {
        e.preventDefault();
        void act(() => api.write("save_version", { name, description }), `Saved "${name}"`).then(() => { setName(""); setDescription(""); });
      }}>
        <h3>Save the working state as a version</h3>
        <div className="row">
          <input aria-label="Version name" placeholder="Version name" value={name} onChange={(e) => setName(e.target.value)} required maxLength={200} data-testid="save-name" />
          <input aria-label="Description" placeholder="Description (optional)" value={description} onChange={(e) => setDescription(e.target.value)} maxLength={5000} />
          <button type="submit" className="primary" disabled={!name.trim()} data-testid="save-version">Save version</button>
        </div>
        {problem && <p className="notice error" role="alert">{problem}</p>}
      </form></EditGate>
    );
  }
  const id = selected;
  return (
    <div className="version-actions" aria-label={`Actions on ${id}`}>
      <h3>{id}</h3>
      <div className="row">
        <button type="button" onClick={() => window.confirm(`Restore ${id}? The working state becomes ${id}; unsaved work is saved automatically first.`) && void act(() => api.write("restore_version", { version_id: id }), `Restored ${id}`)} data-testid="restore" disabled={!canEdit}>Restore…</button>
        <button type="button" onClick={() => onDiff({ from: id, to: "working" })}>Diff with working</button>
        <button type="button" onClick={() => onDiff({ ...diff, from: id })} aria-pressed={diff.from === id}>Diff from</button>
        <button type="button" onClick={() => onDiff({ ...diff, to: id })} aria-pressed={diff.to === id}>Diff to</button>
        <button type="button" className="danger" onClick={() => window.confirm(`Delete ${id}? Its children are re-parented to its parent; this cannot be undone.`) && void act(() => api.write("delete_version", { version_id: id }), `Deleted ${id}`)} data-testid="delete-version" disabled={!canEdit}>Delete…</button>
      </div>
      <form className="row" onSubmit={(e) => {
        e.preventDefault();
        void act(() => api.write("create_branch", { name: branch, from_version: id }), `Branch "${branch}" created from ${id}`).then(() => setBranch(""));
      }}>
        <input aria-label={`New branch from ${id}`} placeholder="New branch name" value={branch} onChange={(e) => setBranch(e.target.value)} required maxLength={100} data-testid="branch-name" />
        <button type="submit" disabled={!branch.trim() || !canEdit} data-testid="create-branch">Branch from {id}</button>
      </form>
      {problem && <p className="notice error" role="alert">{problem}</p>}
    </div>
  );
}
