// TypeBox schemas of the members API: they validate requests, type the handlers and write the OpenAPI document.
import { Type, type Static } from 'typebox';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import { INVITE_STATUSES } from './members.service.ts';

export const MEMBER_ROLES = ['owner', 'admin', 'member'] as const;

const Role = StringEnum(MEMBER_ROLES, {
  description: 'What the person may do (docs/api.md "Roles"); only an owner makes or unmakes an owner.',
});

export const Member = named(
  'Member',
  Type.Object({
    id: Type.String({ description: "The person's user id." }),
    object: Type.Literal('member'),
    user: Type.Object({ id: Type.String(), email: Type.String(), name: Type.Union([Type.String(), Type.Null()]) }),
    role: Role,
    created_at: Timestamp,
  }),
  {
    id: 'user_01JD2C4Q8X5M3N7P9R1T3V5W7Y',
    object: 'member',
    user: { id: 'user_01JD2C4Q8X5M3N7P9R1T3V5W7Y', email: 'ana@example.com', name: 'Ana' },
    role: 'admin',
    created_at: '2026-11-20T10:00:00Z',
  },
);

const inviteProperties = {
  id: Type.String(),
  object: Type.Literal('invite'),
  email: Type.String(),
  role: Role,
  status: StringEnum(INVITE_STATUSES),
  invited_by: Type.Union([Type.String(), Type.Null()]),
  created_at: Timestamp,
  expires_at: Timestamp,
  accepted_at: NullableTimestamp,
};
const inviteExample = {
  id: 'inv_01JD2C4Q8X5M3N7P9R1T3V5W7Y',
  object: 'invite',
  email: 'ana@example.com',
  role: 'member',
  status: 'pending',
  invited_by: 'user_01JD2C4Q8X5M3N7P9R1T3V5W7Y',
  created_at: '2026-11-20T10:00:00Z',
  expires_at: '2026-11-27T10:00:00Z',
  accepted_at: null,
};

export const Invite = named('Invite', Type.Object(inviteProperties), inviteExample);

export const InviteWithUrl = named(
  'InviteWithUrl',
  Type.Object({
    ...inviteProperties,
    url: Type.String({
      description: 'The single-use link to pass on (Herald sends no email): shown in this answer only.',
    }),
  }),
  { ...inviteExample, url: 'https://herald.example.com/app/invite/7wX…' },
);

export const DeletedInvite = named('DeletedInvite', Type.Object({ ...inviteProperties, deleted: Type.Literal(true) }), {
  ...inviteExample,
  deleted: true,
});

export const UpdateMemberBody = named(
  'UpdateMemberBody',
  Type.Object({ role: Role }, { additionalProperties: false }),
  { role: 'admin' },
);
export type UpdateMemberBody = Static<typeof UpdateMemberBody>;

export const CreateInviteBody = named(
  'CreateInviteBody',
  Type.Object({ email: Type.String({ minLength: 3, maxLength: 320 }), role: Role }, { additionalProperties: false }),
  { email: 'ana@example.com', role: 'member' },
);
export type CreateInviteBody = Static<typeof CreateInviteBody>;

export const IdParams = Type.Object({ id: Type.String({ maxLength: 100 }) });

export const PageQuery = Type.Object(
  {
    limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 100, default: 20 })),
    cursor: Type.Optional(Type.String({ maxLength: 1000 })),
  },
  { additionalProperties: false },
);
