// TypeBox schemas of the members API: they validate requests, type the handlers and write the OpenAPI document.
import { Type, type Static } from 'typebox';
import { named, NullableTimestamp, StringEnum, Timestamp } from '../../app/envelope.ts';
import { INVITE_EMAIL_STATUSES } from './members.email.ts';
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
      description:
        'The single-use link: shown in this answer only (and emailed to the invitee when `email_delivery.status` is `sent`).',
    }),
    email_delivery: Type.Object(
      {
        status: StringEnum(INVITE_EMAIL_STATUSES, {
          description:
            '`sent`: the SMTP server took the email; `failed`: it could not be sent (pass the link on yourself); `not_configured`: this server has no SMTP, so no email was sent.',
        }),
        error: Type.Union([Type.String(), Type.Null()], {
          description: 'Why the email could not be sent, in a few words; null unless `failed`.',
        }),
      },
      { description: 'Whether the link was also emailed to the invitee.' },
    ),
  }),
  {
    ...inviteExample,
    url: 'https://herald.example.com/app/invite/7wX…',
    email_delivery: { status: 'sent', error: null },
  },
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
