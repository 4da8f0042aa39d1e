//! The Cloudflare Worker binding of Hippo (see issue: worker).
