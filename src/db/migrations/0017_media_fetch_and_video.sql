-- Media by URL and what Herald reads from a video.
--
-- A media item made from a URL (`POST /v1/media` with `url`) starts `processing`: a job fetches the bytes through
-- the SSRF guard, sniffs them like an upload and makes it `ready` or `failed`. Until then Herald does not know what
-- the bytes are, so `content_type` and `kind` are null while (and only while) the item is `processing`.
ALTER TABLE media DROP CONSTRAINT media_status_check;
ALTER TABLE media ADD CONSTRAINT media_status_check
  CHECK (status IN ('pending_upload', 'processing', 'ready', 'failed'));
ALTER TABLE media ALTER COLUMN content_type DROP NOT NULL;
ALTER TABLE media ALTER COLUMN kind DROP NOT NULL;
ALTER TABLE media ADD CONSTRAINT media_type_known
  CHECK (status IN ('processing', 'failed') OR (content_type IS NOT NULL AND kind IS NOT NULL));

ALTER TABLE media
  ADD COLUMN source_url  text,              -- the URL the bytes were fetched from (null for uploads)
  ADD COLUMN container   text,              -- video: mp4, mov, webm (from the bytes)
  ADD COLUMN video_codec text,              -- video: h264, hevc, vp9, av1 … (null when unread; see `unreadable`)
  ADD COLUMN audio_codec text,              -- video: aac, mp3, opus …; null with no sound track or unread
  ADD COLUMN frame_rate  double precision,  -- video: frames per second
  ADD COLUMN probed_with text               -- video: 'ffprobe' or 'isobmff' (Herald's own MP4 reader)
    CHECK (probed_with IN ('ffprobe', 'isobmff'));

-- Videos transcoded to a platform's rules (H.264/AAC MP4 variants, made with FFmpeg by the variant job): one entry per
-- variant, `{variant_id, platform, status: pending|ready|failed, progress: 0..1, error}`, shown on the media record.
ALTER TABLE media ADD COLUMN transcodes jsonb NOT NULL DEFAULT '[]';
