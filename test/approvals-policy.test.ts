// The approval policy matrix, on the one gate function every surface goes through: role × source × mode decides
// whether an item waits, and role × self-approval whether a person may decide it; brand overrides lay over the
// workspace's policy field by field.
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { decideGate, mayDecide } from '../src/features/approvals/approvals.gate.ts';
import {
  APPROVAL_MODES,
  APPROVAL_SOURCES,
  DEFAULT_POLICY,
  effectivePolicy,
  type ApprovalSource,
  type PolicyFields,
} from '../src/features/approvals/approvals.policy.ts';

const ROLES = ['owner', 'admin', 'member'] as const;
const base: PolicyFields = effectivePolicy(DEFAULT_POLICY, null);

describe('the gate: role × source × mode', () => {
  test('every combination is decided as the policy says', () => {
    const reviewed: ApprovalSource[] = ['automation', 'repurpose', 'queue_import', 'inbox_automation', 'api'];
    let checked = 0;
    for (const mode of APPROVAL_MODES) {
      for (const source of APPROVAL_SOURCES) {
        for (const role of ROLES) {
          const decision = decideGate({ policy: { ...base, mode, sources: reviewed }, role, source });
          const expected =
            mode === 'off' || !reviewed.includes(source) ? false : mode === 'everyone' ? true : role === 'member';
          assert.equal(decision.gated, expected, `${mode} · ${source} · ${role}: ${decision.reason}`);
          checked++;
        }
      }
    }
    assert.equal(checked, APPROVAL_MODES.length * APPROVAL_SOURCES.length * ROLES.length);
  });

  test('the reason names why: off, source not reviewed, owners and admins bypass members mode', () => {
    const members = { ...base, mode: 'members' as const };
    assert.equal(decideGate({ policy: base, role: 'member', source: 'api' }).reason, 'mode_off');
    assert.equal(
      decideGate({ policy: { ...members, sources: ['automation'] }, role: 'member', source: 'api' }).reason,
      'source_not_reviewed',
    );
    assert.equal(decideGate({ policy: members, role: 'admin', source: 'api' }).reason, 'role_bypasses');
    assert.equal(decideGate({ policy: members, role: 'owner', source: 'cli' }).reason, 'role_bypasses');
    assert.equal(decideGate({ policy: members, role: 'member', source: 'cli' }).reason, 'member_reviewed');
    assert.equal(
      decideGate({ policy: { ...members, mode: 'everyone' }, role: 'owner', source: 'mcp' }).reason,
      'everyone_reviewed',
    );
  });
});

describe('who decides: role × self-approval', () => {
  test('approver roles decide; members never; nobody decides their own request unless self-approval is on', () => {
    for (const allow of [false, true]) {
      for (const role of ROLES) {
        for (const own of [false, true]) {
          const refusal = mayDecide({
            policy: { ...base, allow_self_approval: allow },
            role,
            deciderId: 'usr_me',
            requestedBy: own ? 'usr_me' : 'usr_someone',
          });
          const expected = role === 'member' ? 'role_not_approver' : own && !allow ? 'self_approval' : null;
          assert.equal(refusal, expected, `${role} · own ${own} · self-approval ${allow}`);
        }
      }
    }
  });

  test('approver roles can be narrowed to owners', () => {
    const owners = { ...base, approver_roles: ['owner' as const] };
    assert.equal(mayDecide({ policy: owners, role: 'admin', deciderId: 'a', requestedBy: 'b' }), 'role_not_approver');
    assert.equal(mayDecide({ policy: owners, role: 'owner', deciderId: 'a', requestedBy: 'b' }), null);
  });
});

describe('brand overrides', () => {
  test('a brand override replaces only the fields it sets', () => {
    const policy = {
      ...DEFAULT_POLICY,
      mode: 'members' as const,
      expire_after: 3600,
      brand_overrides: { brand_a: { mode: 'everyone' as const } },
    };
    const a = effectivePolicy(policy, 'brand_a');
    assert.equal(a.mode, 'everyone');
    assert.equal(a.expire_after, 3600);
    assert.equal(effectivePolicy(policy, 'brand_b').mode, 'members');
  });

  test('a workspace that never set a policy gates nothing', () => {
    for (const source of APPROVAL_SOURCES)
      assert.equal(decideGate({ policy: base, role: 'member', source }).gated, false);
  });
});
