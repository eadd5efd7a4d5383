/**
 * Secret files, in .gitignore syntax: environment files, private keys and
 * certificates, the credential files of common tools (package registries,
 * git, Docker, Kubernetes, cloud CLIs, Terraform state), and the folders
 * that hold them. Public keys and `.env` templates stay readable: they hold
 * no secrets and projects document themselves with them. In .gitignore
 * syntax a pattern with a slash inside is anchored to the root, hence the
 * leading `**` on those. The config's `code.deny` adds patterns after
 * these; a `!pattern` there re-allows one. The list is here, in config/,
 * because the schema quotes it and the code tools apply it.
 */
export const DEFAULT_SECRET_PATTERNS = [
  ".env",
  ".env.*",
  "!.env.example",
  "!.env.sample",
  "!.env.template",
  "!.env.dist",
  ".envrc",
  "*.pem",
  "*.key",
  "*.p8",
  "*.p12",
  "*.pfx",
  "*.jks",
  "*.keystore",
  "*.ppk",
  "id_rsa*",
  "id_dsa*",
  "id_ecdsa*",
  "id_ed25519*",
  "*_key",
  "deploy_key*",
  "!*.pub",
  ".netrc",
  "_netrc",
  ".pgpass",
  ".npmrc",
  ".yarnrc.yml",
  ".pypirc",
  "**/.gem/credentials",
  ".git-credentials",
  "**/.docker/config.json",
  "**/.kube/config",
  "kubeconfig",
  ".terraformrc",
  "*.tfstate",
  "*.tfstate.backup",
  ".boto",
  ".s3cfg",
  ".htpasswd",
  ".vault-token",
  "*.tfvars",
  ".dockercfg",
  ".git/",
  ".ssh/",
  ".aws/",
  ".azure/",
  ".gnupg/",
  "**/.config/gcloud/",
  // metatools' own sign-ins (docs/oauth.md), with their lock and temporary files.
  "metatools.tokens.json*",
];
