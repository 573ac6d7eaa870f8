// The automation form, shared by the new and the edit pages: every field POST and PATCH /v1/automations take.
import { useCallback, useState, type FormEvent, type ReactNode } from 'react';
import { BrandOptions } from '../../ui.tsx';
import { GeneratorFields, SourceFields } from './form-source.tsx';
import { DestinationFields, OptionFields, OutputFields } from './form-output.tsx';
import type { FormState } from './model.ts';
import type { Connection } from './connections.ts';

export function AutomationForm({
  initial,
  creating,
  connections,
  label,
  onSubmit,
  children,
}: {
  initial: FormState;
  creating: boolean;
  connections: Connection[];
  label: string;
  /** `intent` is the name of the submit button pressed. */
  onSubmit(form: FormState, intent: string): void;
  /** The submit buttons and the error, below the fields. */
  children: ReactNode;
}) {
  const [form, setForm] = useState(initial);
  // Functional, so that two changes made by one click (a source and the generator it forces) both land.
  const set = useCallback(
    <K extends keyof FormState>(key: K, value: FormState[K]) => setForm((f) => ({ ...f, [key]: value })),
    [],
  );
  const submit = (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    const submitter = (event.nativeEvent as SubmitEvent).submitter as HTMLButtonElement | null;
    onSubmit(form, submitter?.value ?? 'save');
  };
  return (
    <form className="stack automation-form" aria-label={label} onSubmit={submit}>
      <div className="inline">
        <label className="grow">
          Name
          <input required value={form.name} onChange={(e) => set('name', e.target.value)} />
        </label>
        {creating ? (
          <>
            <label>
              Brand
              <select
                value={form.brandId}
                onChange={(e) => setForm((f) => ({ ...f, brandId: e.target.value, destinations: [] }))}
              >
                <BrandOptions />
              </select>
            </label>
            <label>
              Status
              <select value={form.status} onChange={(e) => set('status', e.target.value as FormState['status'])}>
                <option value="active">active</option>
                <option value="paused">paused</option>
              </select>
            </label>
          </>
        ) : null}
      </div>
      <SourceFields form={form} set={set} />
      <GeneratorFields form={form} set={set} />
      <DestinationFields form={form} set={set} connections={connections} />
      <OutputFields form={form} set={set} />
      <OptionFields form={form} set={set} />
      {children}
    </form>
  );
}
