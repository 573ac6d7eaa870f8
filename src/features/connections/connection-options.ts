// What a connection offers a post's `platform_options` (GET /v1/connections/{id}, `options`): the choices its
// adapter recorded on the connection when the account was connected (`settings`), such as Pinterest's boards for
// `platform_options.pinterest.board_id` (or `boards`). Reconnecting the account records them afresh.
import { Type } from 'typebox';

export const BoardOption = Type.Object(
  {
    id: Type.String({
      description: "The board id, for `platform_options.pinterest.board_id` (or this connection's entry in `boards`).",
      examples: ['549755885175'],
    }),
    name: Type.String(),
    privacy: Type.Union([Type.String(), Type.Null()], { description: '`PUBLIC`, `PROTECTED` or `SECRET`.' }),
  },
  { additionalProperties: false },
);

export const ConnectionOptions = Type.Object(
  {
    boards: Type.Optional(
      Type.Array(BoardOption, {
        description: "Pinterest: the account's boards as of its last connect (reconnect to see new ones).",
      }),
    ),
    privacy_levels: Type.Optional(
      Type.Array(Type.String(), {
        description:
          "TikTok: the creator's privacy levels for `platform_options.tiktok.privacy_level`, as of its last connect (each post reads them afresh).",
        examples: [['PUBLIC_TO_EVERYONE', 'MUTUAL_FOLLOW_FRIENDS', 'SELF_ONLY']],
      }),
    ),
  },
  {
    description:
      "Choices the account offers for the post's `platform_options`, as recorded when it was connected; absent when its platform has none.",
  },
);

interface Board {
  id: string;
  name: string;
  privacy: string | null;
}

const isBoard = (b: unknown): b is Board =>
  typeof (b as Board)?.id === 'string' && typeof (b as Board)?.name === 'string';

/** The `options` of a connection from its recorded settings; undefined when there are none. */
export function connectionOptions(
  settings: Record<string, unknown>,
): { boards?: Board[]; privacy_levels?: string[] } | undefined {
  const levels = settings.privacy_level_options;
  const privacy = Array.isArray(levels) ? levels.filter((l): l is string => typeof l === 'string') : undefined;
  if (!Array.isArray(settings.boards) && !privacy) return undefined;
  return {
    ...(Array.isArray(settings.boards) && {
      boards: settings.boards
        .filter(isBoard)
        .map((b) => ({ id: b.id, name: b.name, privacy: typeof b.privacy === 'string' ? b.privacy : null })),
    }),
    ...(privacy && { privacy_levels: privacy }),
  };
}
