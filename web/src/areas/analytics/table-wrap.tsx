// A table that may scroll sideways on a phone: focusable and named, so a keyboard can scroll it too.
import type { ReactNode } from 'react';

export function TableWrap({ label, children }: { label: string; children: ReactNode }) {
  return (
    <div className="table-wrap" role="region" aria-label={label} tabIndex={0}>
      {children}
    </div>
  );
}
