export const HELP: Record<string, string> = {
  main: `multidrm: test console for the license service's token and AES rules

Usage:
  multidrm token create   build a license token
  multidrm token inspect  decode a token; with keys, verify it as the license service would
  multidrm token convert  turn a v1 policy into the v2 policy that means the same
  multidrm encrypt        AES-256-CBC encrypt text with a site key (base64 out)
  multidrm decrypt        decrypt base64 text with a site key
  multidrm explain        what a license service refusal code means and how to fix it

Run any command with --help for its options (multidrm token --help lists the token commands). Keys may come from the environment:
MULTIDRM_SITE_ID, MULTIDRM_SITE_KEY, MULTIDRM_ACCESS_KEY.
Exit codes: 0 ok, 1 invalid input or invalid token, 2 usage error.
`,
  token: `Usage: multidrm token COMMAND [options]

  multidrm token create   build a license token (v2 for a v2 policy, else v1)
  multidrm token inspect  decode a token; with keys, verify it as the license service would
  multidrm token convert  turn a v1 policy into the v2 policy that means the same

Run multidrm token COMMAND --help for its options.
`,
  'token create': `Usage: multidrm token create --cid CID [options]

Prints a license token (base64 of the token JSON) and a newline. A v2 policy (it has
"policy_version": 2, the service's current format) makes a v2 token; a v1 policy or none a v1 token.

  --site-id ID          site ID            (or MULTIDRM_SITE_ID)
  --site-key KEY        32-character site key (or MULTIDRM_SITE_KEY)
  --access-key KEY      site access key    (or MULTIDRM_ACCESS_KEY)
  --cid CID             content ID (required)
  --user-id USER        user ID (default LICENSETOKEN)
  --drm-type TYPE       NCG | Widevine | PlayReady | FairPlay | Wiseplay, any case
                        (written in that spelling; default PlayReady)
  --policy JSON|@FILE   v2: {"policy_version":2,"playback_policy":…,"security_policy":[…],"external_key":…}
                        v1: {"playback_policy":…,"security_policy":…,"external_key":…}
  --timestamp TIME      yyyy-mm-ddThh:mm:ssZ (default now)
  --response-format F   v2 only: original (default) | json | custom (outside the hash)
  --key-rotation        v2 only: set key_rotation true (outside the hash)
  --hash READING        v1 only: hex-text (default, the spec's reading) | raw-digest;
                        v2 tokens always hash the raw digest

Examples:
  multidrm token create --cid movie-1 --drm-type Widevine \\
    --policy '{"policy_version":2,"playback_policy":{"persistent":false,"license_duration":3600}}'
  multidrm token create --cid movie-1 --policy '{"playback_policy":{"limit":true,"duration":3600}}'
`,
  'token inspect': `Usage: multidrm token inspect TOKEN [options]

Shows every field of a token. With both keys it also checks the hash, the validity window and
decrypts the policy, as the license service does; an invalid token exits 1 with its error code.
TOKEN may be - to read it from standard input.

  --site-key KEY        (or MULTIDRM_SITE_KEY)
  --access-key KEY      (or MULTIDRM_ACCESS_KEY)
  --site-id ID          also require the token to be for this site
  --now TIME            check validity at this time instead of now (ISO 8601)
  --validity SECONDS    validity after the timestamp (default 600, the service's current guide;
                        the main spec's older text says 60)
  --skew SECONDS        allowed clock skew into the future (default 5)
  --hash READING        v1 only: hex-text (default) | raw-digest (v2 always raw digest)
  --json                print one JSON object instead of text
`,
  'token convert': `Usage: multidrm token convert --policy JSON|@FILE

Prints the v2 policy (one line of JSON) that means what the v1 policy means, as far as v2 can say
it. Every v1 rule without an exact v2 counterpart (limit, hardware_drm, output_protect, an hls_aes
key without key_id, ...) is a warning on standard error, with what was done with it.

Example:
  multidrm token convert --policy '{"playback_policy":{"limit":true,"duration":3600}}'
`,
  explain: `Usage: multidrm explain CODE | ANSWER | -

What a refusal of the license service means and how to fix it: 6003 (concurrent stream limit),
7011 (token expired), 8711 (playback period over). Give the code, or the refusal answer as the
player got it ({"errorCode":"6003","message":"…"}), or - to read it from standard input.

Example:
  multidrm explain 6003
`,
  encrypt: `Usage: multidrm encrypt --site-key KEY [TEXT | -]

AES-256-CBC (IV 0123456789abcdef, PKCS7) of the UTF-8 TEXT, printed as base64.
With - the text is read from standard input (one trailing newline is dropped).

  --site-key KEY        32-character site key (or MULTIDRM_SITE_KEY)
`,
  decrypt: `Usage: multidrm decrypt --site-key KEY [BASE64 | -]

Decrypts base64 AES-256-CBC text made with the site key and prints the UTF-8 plaintext.
With - the base64 is read from standard input.

  --site-key KEY        32-character site key (or MULTIDRM_SITE_KEY)
`,
};
