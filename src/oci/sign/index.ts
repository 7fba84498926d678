// oci/sign/: cosign-compatible, key-based image signatures (docs/images.md "Supply chain").
//   keys.ts     key pairs in cosign's formats (scrypt + NaCl secretbox private key, PKIX public key)
//   payload.ts  the simple-signing payload a signature covers (the image's manifest digest)
//   layout.ts   where cosign keeps signatures: the `sha256-<hex>.sig` tag, one layer per signature
//   sign.ts     sign an image; verify.ts: verify one (the reason named when it does not)
//   key-files.ts  reading key files and the password (COSIGN_PASSWORD or a prompt)
//   commands.ts   keygen, sign and verify with a registry client, for the CLI
//   before-run.ts `run bundle --verify-key`: the bundle and every image its CSV names, before anything is created
//   policy.ts     which key: --verify-key, else $TSOP_VERIFY_KEY, else PROJECT's verify.key (--no-verify-key: none)
export { decryptPrivateKey, generateKeyPair, loadPublicKey } from "./keys.js";
export { signImage, type SignResult } from "./sign.js";
export { ImageVerificationError, verifyImage, type VerifyResult } from "./verify.js";
export { readPrivateKeyFile, readPublicKeyFile } from "./key-files.js";
export { keygen, signPushed, signReference, verifyReference, type SigningOptions } from "./commands.js";
export { verifyBundleImages, verifyImages, type VerifyBeforeRunOptions } from "./before-run.js";
export { resolveVerifyKey, VERIFY_KEY_ENV, type VerifyKey } from "./policy.js";
