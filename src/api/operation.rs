//! One entry for every request: a route's [`OpKind`], its path parameters, its query string
//! and its body bytes become a typed [`Operation`]; [`Hippo::execute`] runs it and answers the
//! route's response value. The Worker serves every core route through these two calls, and
//! the whole-request fuzz target (`fuzz/`, `tests/fuzz_checks`) drives the same two, so what
//! the fuzzer reaches is what HTTP reaches. Every error is a [`crate::Error`], mapped to a
//! status in one place by the binding.
#![deny(clippy::indexing_slicing, clippy::arithmetic_side_effects)]

use super::protocol::{parse_retrieval_request, ParsedRetrieval};
use super::*;
use crate::error::{Error, Result};
use crate::ids::validate_npcid;
use serde::de::DeserializeOwned;

/// What a route does in the core. The Worker's route table names one per route it serves
/// through [`Hippo::execute`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OpKind {
    ListNpcs,
    GetNpc,
    PutNpc,
    DeleteNpc,
    GetPkg,
    PutPkg,
    GetRelationship,
    PostRelationship,
    GetDiary,
    Dream,
    AppendConversation,
    GetConversation,
    AddMemories,
    ListMemories,
    UpdateMemory,
    DeleteMemory,
    /// Every memory of the NPC (MCP `forget` with `all`); needs `confirm=<npcid>`.
    ForgetMemories,
    SearchMemories,
    Brief,
    IssueToken,
    RevokeToken,
    ExportNpc,
    ImportNpc,
    RebuildVectors,
    /// memory_retrieval for the NPC in the `npcid` parameter (the binding resolves the token
    /// to it first: the body never names the NPC).
    Retrieve,
}

impl OpKind {
    pub const ALL: [OpKind; 25] = [
        OpKind::ListNpcs,
        OpKind::GetNpc,
        OpKind::PutNpc,
        OpKind::DeleteNpc,
        OpKind::GetPkg,
        OpKind::PutPkg,
        OpKind::GetRelationship,
        OpKind::PostRelationship,
        OpKind::GetDiary,
        OpKind::Dream,
        OpKind::AppendConversation,
        OpKind::GetConversation,
        OpKind::AddMemories,
        OpKind::ListMemories,
        OpKind::UpdateMemory,
        OpKind::DeleteMemory,
        OpKind::ForgetMemories,
        OpKind::SearchMemories,
        OpKind::Brief,
        OpKind::IssueToken,
        OpKind::RevokeToken,
        OpKind::ExportNpc,
        OpKind::ImportNpc,
        OpKind::RebuildVectors,
        OpKind::Retrieve,
    ];
}

/// A request as the binding received it, before any parsing.
#[derive(Debug, Clone, Copy, Default)]
pub struct RawRequest<'a> {
    /// Path parameters by name: `npcid`, `id`, `token_id`.
    pub path: &'a [(&'a str, &'a str)],
    /// The query string as decoded (name, value) pairs, in order.
    pub query: &'a [(String, String)],
    /// The body (empty for routes without one; an empty body reads as `{}`).
    pub body: &'a [u8],
}

/// A parsed request of one route: what [`Hippo::execute`] runs.
#[derive(Debug, Clone, PartialEq)]
pub enum Operation {
    ListNpcs {
        after: Option<String>,
        limit: usize,
    },
    GetNpc {
        npcid: String,
    },
    PutNpc {
        npcid: String,
        request: NpcUpsert,
    },
    DeleteNpc {
        npcid: String,
    },
    GetPkg {
        npcid: String,
    },
    PutPkg {
        npcid: String,
        request: PkgUpdateRequest,
    },
    GetRelationship {
        npcid: String,
    },
    PostRelationship {
        npcid: String,
        request: EntityOpsRequest,
    },
    GetDiary {
        npcid: String,
    },
    Dream {
        npcid: String,
        dry_run: bool,
    },
    AppendConversation {
        npcid: String,
        request: ConversationAppend,
    },
    GetConversation {
        npcid: String,
        since: u64,
        limit: usize,
    },
    AddMemories {
        npcid: String,
        request: AddMemoriesRequest,
    },
    ListMemories {
        npcid: String,
        query: ListMemoriesQuery,
    },
    UpdateMemory {
        npcid: String,
        id: String,
        patch: MemoryPatch,
    },
    DeleteMemory {
        npcid: String,
        id: String,
    },
    ForgetMemories {
        npcid: String,
    },
    SearchMemories {
        npcid: String,
        request: SearchRequest,
    },
    Brief {
        npcid: String,
        request: BriefRequest,
    },
    IssueToken {
        npcid: String,
        request: TokenRequest,
    },
    RevokeToken {
        npcid: String,
        token_id: String,
    },
    ExportNpc {
        npcid: String,
    },
    ImportNpc {
        npcid: String,
        document: Box<NpcExport>,
    },
    RebuildVectors {
        npcid: String,
    },
    Retrieve {
        npcid: String,
        request: ParsedRetrieval,
    },
}

/// The response value of an operation: the route's JSON body.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(untagged)]
pub enum Reply {
    Ok(Ok),
    Npc(NpcView),
    Npcs(NpcList),
    Pkg(PkgView),
    PkgUpdated(PkgUpdateResponse),
    Relationship(RelationshipView),
    EntityOps(EntityOpsResponse),
    Diary(DiaryView),
    Dream(DreamResponse),
    Appended(ConversationAppendResponse),
    Conversation(ConversationView),
    MemoriesAdded(AddMemoriesResponse),
    Memories(MemoryList),
    MemoryUpdated(UpdateMemoryResponse),
    Search(SearchResponse),
    Brief(BriefResponse),
    Forgot(Forgot),
    Token(TokenIssued),
    Export(Box<NpcExport>),
    Rebuilt(RebuildResponse),
    Retrieval(RetrievalResponse),
}

impl Operation {
    /// Parses one request of `kind`. Path parameters are checked first (`npcid` by the core's
    /// rule), then the query string, then the body: the first problem is the error.
    pub fn parse(kind: OpKind, raw: &RawRequest) -> Result<Operation> {
        let npcid = || npcid_param(raw);
        let q = raw.query;
        Ok(match kind {
            OpKind::ListNpcs => Operation::ListNpcs {
                after: param(q, "after").map(str::to_string),
                limit: count_param(q, "limit", NPC_PAGE_DEFAULT)?,
            },
            OpKind::GetNpc => Operation::GetNpc { npcid: npcid()? },
            OpKind::PutNpc => Operation::PutNpc {
                npcid: npcid()?,
                request: parse_body(raw.body)?,
            },
            OpKind::DeleteNpc => Operation::DeleteNpc { npcid: npcid()? },
            OpKind::GetPkg => Operation::GetPkg { npcid: npcid()? },
            OpKind::PutPkg => Operation::PutPkg {
                npcid: npcid()?,
                request: parse_body(raw.body)?,
            },
            OpKind::GetRelationship => Operation::GetRelationship { npcid: npcid()? },
            OpKind::PostRelationship => Operation::PostRelationship {
                npcid: npcid()?,
                request: parse_body(raw.body)?,
            },
            OpKind::GetDiary => Operation::GetDiary { npcid: npcid()? },
            OpKind::Dream => Operation::Dream {
                npcid: npcid()?,
                dry_run: bool_param(q, "dry_run")?,
            },
            OpKind::AppendConversation => Operation::AppendConversation {
                npcid: npcid()?,
                request: parse_body(raw.body)?,
            },
            OpKind::GetConversation => Operation::GetConversation {
                npcid: npcid()?,
                since: number_param(q, "since", 0)?,
                limit: count_param(q, "limit", LOG_PAGE_DEFAULT)?,
            },
            OpKind::AddMemories => Operation::AddMemories {
                npcid: npcid()?,
                request: parse_body(raw.body)?,
            },
            OpKind::ListMemories => Operation::ListMemories {
                npcid: npcid()?,
                query: list_query(q)?,
            },
            OpKind::UpdateMemory => Operation::UpdateMemory {
                npcid: npcid()?,
                id: path_param(raw, "id")?,
                patch: parse_body(raw.body)?,
            },
            OpKind::DeleteMemory => Operation::DeleteMemory {
                npcid: npcid()?,
                id: path_param(raw, "id")?,
            },
            OpKind::ForgetMemories => {
                let npcid = npcid()?;
                // Deleting everything must be meant: the caller names the NPC twice.
                if param(q, "confirm") != Some(npcid.as_str()) {
                    return Err(Error::invalid(format!(
                        "deleting every memory of {npcid} needs confirm={npcid}"
                    )));
                }
                Operation::ForgetMemories { npcid }
            }
            OpKind::SearchMemories => Operation::SearchMemories {
                npcid: npcid()?,
                request: parse_body(raw.body)?,
            },
            OpKind::Brief => Operation::Brief {
                npcid: npcid()?,
                request: parse_body(raw.body)?,
            },
            OpKind::IssueToken => Operation::IssueToken {
                npcid: npcid()?,
                request: parse_body(raw.body)?,
            },
            OpKind::RevokeToken => Operation::RevokeToken {
                npcid: npcid()?,
                token_id: path_param(raw, "token_id")?,
            },
            OpKind::ExportNpc => Operation::ExportNpc { npcid: npcid()? },
            OpKind::ImportNpc => Operation::ImportNpc {
                npcid: npcid()?,
                document: Box::new(parse_body(raw.body)?),
            },
            OpKind::RebuildVectors => Operation::RebuildVectors { npcid: npcid()? },
            OpKind::Retrieve => Operation::Retrieve {
                npcid: npcid()?,
                request: parse_retrieval_request(raw.body)?,
            },
        })
    }
}

impl Operation {
    /// The route kind this operation was parsed for.
    pub fn kind(&self) -> OpKind {
        match self {
            Operation::ListNpcs { .. } => OpKind::ListNpcs,
            Operation::GetNpc { .. } => OpKind::GetNpc,
            Operation::PutNpc { .. } => OpKind::PutNpc,
            Operation::DeleteNpc { .. } => OpKind::DeleteNpc,
            Operation::GetPkg { .. } => OpKind::GetPkg,
            Operation::PutPkg { .. } => OpKind::PutPkg,
            Operation::GetRelationship { .. } => OpKind::GetRelationship,
            Operation::PostRelationship { .. } => OpKind::PostRelationship,
            Operation::GetDiary { .. } => OpKind::GetDiary,
            Operation::Dream { .. } => OpKind::Dream,
            Operation::AppendConversation { .. } => OpKind::AppendConversation,
            Operation::GetConversation { .. } => OpKind::GetConversation,
            Operation::AddMemories { .. } => OpKind::AddMemories,
            Operation::ListMemories { .. } => OpKind::ListMemories,
            Operation::UpdateMemory { .. } => OpKind::UpdateMemory,
            Operation::DeleteMemory { .. } => OpKind::DeleteMemory,
            Operation::ForgetMemories { .. } => OpKind::ForgetMemories,
            Operation::SearchMemories { .. } => OpKind::SearchMemories,
            Operation::Brief { .. } => OpKind::Brief,
            Operation::IssueToken { .. } => OpKind::IssueToken,
            Operation::RevokeToken { .. } => OpKind::RevokeToken,
            Operation::ExportNpc { .. } => OpKind::ExportNpc,
            Operation::ImportNpc { .. } => OpKind::ImportNpc,
            Operation::RebuildVectors { .. } => OpKind::RebuildVectors,
            Operation::Retrieve { .. } => OpKind::Retrieve,
        }
    }

    /// The NPC the operation is about (`None` only for the NPC list).
    pub fn npcid(&self) -> Option<&str> {
        match self {
            Operation::ListNpcs { .. } => None,
            Operation::GetNpc { npcid }
            | Operation::PutNpc { npcid, .. }
            | Operation::DeleteNpc { npcid }
            | Operation::GetPkg { npcid }
            | Operation::PutPkg { npcid, .. }
            | Operation::GetRelationship { npcid }
            | Operation::PostRelationship { npcid, .. }
            | Operation::GetDiary { npcid }
            | Operation::Dream { npcid, .. }
            | Operation::AppendConversation { npcid, .. }
            | Operation::GetConversation { npcid, .. }
            | Operation::AddMemories { npcid, .. }
            | Operation::ListMemories { npcid, .. }
            | Operation::UpdateMemory { npcid, .. }
            | Operation::DeleteMemory { npcid, .. }
            | Operation::ForgetMemories { npcid }
            | Operation::SearchMemories { npcid, .. }
            | Operation::Brief { npcid, .. }
            | Operation::IssueToken { npcid, .. }
            | Operation::RevokeToken { npcid, .. }
            | Operation::ExportNpc { npcid }
            | Operation::ImportNpc { npcid, .. }
            | Operation::RebuildVectors { npcid }
            | Operation::Retrieve { npcid, .. } => Some(npcid),
        }
    }
}

/// Parses a JSON body; an empty body reads as `{}` (routes whose fields are all optional).
/// Every body is an object: serde would read a struct from a JSON array too, by position.
pub fn parse_body<T: DeserializeOwned>(bytes: &[u8]) -> Result<T> {
    let text =
        std::str::from_utf8(bytes).map_err(|_| Error::invalid("request body is not UTF-8"))?;
    let text = if text.trim().is_empty() { "{}" } else { text };
    if !text.trim_start().starts_with('{') {
        return Err(Error::invalid("request body must be a JSON object"));
    }
    crate::json::parse(text).map_err(|e| Error::invalid(format!("invalid JSON body: {e}")))
}

fn path_param(raw: &RawRequest, name: &str) -> Result<String> {
    raw.path
        .iter()
        .find(|(n, _)| *n == name)
        .map(|(_, v)| v.to_string())
        .filter(|v| !v.is_empty())
        .ok_or_else(|| Error::invalid(format!("missing path parameter {name}")))
}

/// The `npcid` path parameter, validated (400 for a bad one, before anything is read).
fn npcid_param(raw: &RawRequest) -> Result<String> {
    let npcid = raw
        .path
        .iter()
        .find(|(n, _)| *n == "npcid")
        .map_or("", |(_, v)| *v);
    validate_npcid(npcid)?;
    Ok(npcid.to_string())
}

/// The last value of a query parameter.
pub fn param<'a>(pairs: &'a [(String, String)], name: &str) -> Option<&'a str> {
    pairs
        .iter()
        .rev()
        .find(|(k, _)| k == name)
        .map(|(_, v)| v.as_str())
}

fn bool_param(pairs: &[(String, String)], name: &str) -> Result<bool> {
    match param(pairs, name)
        .map(|v| v.trim().to_ascii_lowercase())
        .as_deref()
    {
        None | Some("") | Some("false") | Some("0") => Ok(false),
        Some("true") | Some("1") => Ok(true),
        Some(other) => Err(Error::invalid(format!(
            "{name} must be true or false, got {:?}",
            crate::pkg::cut_chars(other, 32)
        ))),
    }
}

/// A non-negative integer parameter (`default` when absent or empty).
fn number_param(pairs: &[(String, String)], name: &str, default: u64) -> Result<u64> {
    match param(pairs, name).map(str::trim) {
        None | Some("") => Ok(default),
        Some(v) => v.parse::<u64>().map_err(|_| {
            Error::invalid(format!(
                "{name} must be a non-negative integer, got {:?}",
                crate::pkg::cut_chars(v, 32)
            ))
        }),
    }
}

/// A count or offset: a number parameter as `usize`, saturating where `usize` is narrower
/// (wasm32: `limit=4294967297` must not wrap to 1). Each operation clamps it further.
fn count_param(pairs: &[(String, String)], name: &str, default: usize) -> Result<usize> {
    let default = u64::try_from(default).unwrap_or(u64::MAX);
    let n = number_param(pairs, name, default)?;
    Ok(usize::try_from(n).unwrap_or(usize::MAX))
}

/// `GET /api/memories/{npcid}?types=a,b&collection=&include_superseded=&offset=&limit=`.
fn list_query(q: &[(String, String)]) -> Result<ListMemoriesQuery> {
    let types = q
        .iter()
        .filter(|(k, _)| k == "types" || k == "type")
        .flat_map(|(_, v)| v.split(','))
        .map(|t| t.trim().to_string())
        .filter(|t| !t.is_empty())
        .collect();
    let limit = match param(q, "limit") {
        Some(_) => Some(count_param(q, "limit", 0)?),
        None => None,
    };
    Ok(ListMemoriesQuery {
        types,
        collection: param(q, "collection").map(str::to_string),
        include_superseded: bool_param(q, "include_superseded")?,
        offset: count_param(q, "offset", 0)?,
        limit,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn pairs(list: &[(&str, &str)]) -> Vec<(String, String)> {
        list.iter()
            .map(|(k, v)| (k.to_string(), v.to_string()))
            .collect()
    }

    fn parse(
        kind: OpKind,
        path: &[(&str, &str)],
        query: &[(&str, &str)],
        body: &str,
    ) -> Result<Operation> {
        let query = pairs(query);
        Operation::parse(
            kind,
            &RawRequest {
                path,
                query: &query,
                body: body.as_bytes(),
            },
        )
    }

    #[test]
    fn json_bodies() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct B {
            #[serde(default)]
            a: Option<u32>,
        }
        assert_eq!(parse_body::<B>(b"").unwrap(), B { a: None });
        assert_eq!(parse_body::<B>(br#"{"a": 2}"#).unwrap(), B { a: Some(2) });
        let err = parse_body::<B>(b"{oops").unwrap_err();
        assert!(matches!(&err, Error::InvalidInput(m) if m.starts_with("invalid JSON body")));
        assert!(parse_body::<B>(&[0xff, 0xfe]).is_err());
    }

    #[test]
    fn query_parameters() {
        let p = pairs(&[("dry_run", "TRUE"), ("limit", "20"), ("x", "maybe")]);
        assert!(bool_param(&p, "dry_run").unwrap());
        assert!(!bool_param(&p, "missing").unwrap());
        assert!(bool_param(&p, "x").is_err());
        assert_eq!(number_param(&p, "limit", 5).unwrap(), 20);
        assert_eq!(number_param(&p, "since", 0).unwrap(), 0);
        assert!(number_param(&p, "x", 0).is_err());
        let huge = pairs(&[
            ("limit", "18446744073709551615"),
            ("offset", "99999999999999999999"),
        ]);
        assert_eq!(count_param(&huge, "limit", 1).unwrap(), usize::MAX);
        assert!(count_param(&huge, "offset", 0).is_err());
    }

    #[test]
    fn path_parameters_are_checked_before_the_body() {
        let err = parse(OpKind::PutPkg, &[("npcid", "..")], &[], "{oops").unwrap_err();
        assert!(matches!(err, Error::InvalidInput(m) if m.starts_with("npcid")));
        let err = parse(OpKind::PutPkg, &[], &[], "{}").unwrap_err();
        assert!(matches!(err, Error::InvalidInput(m) if m.starts_with("npcid")));
        let err = parse(OpKind::DeleteMemory, &[("npcid", "a"), ("id", "")], &[], "").unwrap_err();
        assert_eq!(err, Error::invalid("missing path parameter id"));
        let op = parse(OpKind::Dream, &[("npcid", "a")], &[("dry_run", "1")], "").unwrap();
        assert_eq!(
            op,
            Operation::Dream {
                npcid: "a".into(),
                dry_run: true
            }
        );
        let op = parse(
            OpKind::Retrieve,
            &[("npcid", "a")],
            &[],
            r#"{"query":" hi ","max_results":"99"}"#,
        )
        .unwrap();
        let Operation::Retrieve { request, .. } = op else {
            panic!("{op:?}")
        };
        assert_eq!((request.query.as_str(), request.max_results), ("hi", 10));
    }
}
