//! Relationship entities (`entity_001`, …) and the add / update / delete operations (SPEC §1).
//!
//! [`apply_ops`] is pure: it takes the NPC's entities and returns the new ones together with
//! the store writes that get there, so the engine commits them in one batch.
#![deny(
    clippy::indexing_slicing,
    clippy::string_slice,
    clippy::arithmetic_side_effects
)]

use crate::error::{Error, Result};
use indexmap::IndexMap;
use serde::{Deserialize, Serialize};

/// A person in the user's life, as the seed's `relationship.{id}` shape.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize)]
pub struct Entity {
    pub name: String,
    #[serde(default)]
    pub alias: Vec<String>,
    #[serde(default)]
    pub title: Vec<String>,
    #[serde(default)]
    pub remark: String,
    /// Ids of the turns a dream drew the entity from (docs/LIFECYCLE.md, "Source links"), at
    /// most [`crate::memory::MAX_SOURCE_TURNS`]. Explicit ops leave them as they are.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub source_turns: Vec<String>,
}

/// The NPC's entities keyed by id. Iteration is by entity number (see [`entity_number`]).
pub type Relationships = std::collections::BTreeMap<String, Entity>;

/// The store's `(id, entity)` rows as [`Relationships`], by inserts: `collect` would sort
/// them first, a copy of the standard stable sort (2.9 KB of the package's gzip) for this
/// one type. A repeated id keeps its last entity, as `collect` does.
pub fn from_rows(rows: Vec<(String, Entity)>) -> Relationships {
    let mut entities = Relationships::new();
    for (id, entity) in rows {
        entities.insert(id, entity);
    }
    entities
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum OpKind {
    Add,
    Update,
    Delete,
}

/// One entity operation, as in `POST /api/relationship/{npcid}` and the dream report.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct EntityOp {
    pub op: OpKind,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub alias: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub title: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub remark: Option<String>,
}

/// Names and aliases are at most this many Unicode scalar values.
pub const MAX_NAME_CHARS: usize = 200;
/// An entity has at most this many aliases and this many titles.
pub const MAX_LIST_ITEMS: usize = 50;
/// Remarks are at most this many Unicode scalar values.
pub const MAX_REMARK_CHARS: usize = 1024;
/// Entities one NPC holds at most: every retrieval renders each as a candidate, so the
/// count is bounded like every other input. An `add` beyond it is a 400 on the API and is
/// skipped by the dream.
pub const MAX_ENTITIES: usize = 1_000;

/// `entity_NNN` for sequence number `n` (at least three digits).
pub fn entity_id(n: u32) -> String {
    format!("entity_{n:03}")
}

/// The number of an `entity_NNN` id, if it is one.
pub fn entity_number(id: &str) -> Option<u32> {
    id.strip_prefix("entity_")?.parse().ok()
}

/// A store write produced by [`apply_ops`].
#[derive(Debug, Clone, PartialEq)]
pub enum EntityWrite {
    Put { id: String, entity: Entity },
    Delete { id: String },
}

/// What a list of ops did.
#[derive(Debug, Clone, PartialEq)]
pub struct EntityOpsOutcome {
    /// One write per entity whose stored state changed, in order of first touch.
    pub writes: Vec<EntityWrite>,
    /// `(what the op did, entity id)` per applied op, in request order. An `add` that found
    /// an existing entity reports `Update`.
    pub results: Vec<(OpKind, String)>,
    /// The NPC's next entity sequence number (never goes back, so ids are never reused).
    pub next_entity_seq: u32,
    /// The entities after all ops.
    pub entities: Relationships,
}

/// Applies `ops` in order; each op sees the effects of the ones before it.
///
/// With `strict` (the explicit API) the first invalid op fails the whole call: an op over a
/// length limit or an `add` without a name is `InvalidInput`, an `update` / `delete` that
/// matches nothing is `NotFound`. Without it (ops extracted by an LLM during a dream) such ops
/// are skipped: they appear in neither `results` nor `writes`.
///
/// A `remark` that is empty or blank counts as not given (LLMs emit `""` for "no remark").
pub fn apply_ops(
    current: &Relationships,
    next_entity_seq: u32,
    ops: &[EntityOp],
    strict: bool,
) -> Result<EntityOpsOutcome> {
    apply_linked_ops(current, next_entity_seq, ops, &[], strict)
}

/// [`apply_ops`] for ops drawn from the conversation: `links[i]` are the turns that stated
/// `ops[i]`, added to the entity it adds or updates (without repeats, up to
/// [`crate::memory::MAX_SOURCE_TURNS`]). An entity whose only change is a new link is
/// written too; the same turns again change nothing.
pub fn apply_linked_ops(
    current: &Relationships,
    next_entity_seq: u32,
    ops: &[EntityOp],
    links: &[Vec<String>],
    strict: bool,
) -> Result<EntityOpsOutcome> {
    let mut entities = current.clone();
    let highest = current.keys().filter_map(|id| entity_number(id)).max();
    let mut seq = next_entity_seq.max(highest.map_or(1, |n| n.saturating_add(1)));
    let mut results = Vec::new();
    let mut touched: Vec<String> = Vec::new();

    for (index, op) in ops.iter().enumerate() {
        match apply_op(&mut entities, &mut seq, index, op) {
            Ok((kind, id)) => {
                if let (Some(entity), Some(more)) = (entities.get_mut(&id), links.get(index)) {
                    crate::memory::merge_source_turns(&mut entity.source_turns, more);
                }
                if !touched.contains(&id) {
                    touched.push(id.clone());
                }
                results.push((kind, id));
            }
            Err(err) if strict => return Err(err),
            Err(_) => {}
        }
    }

    let writes = touched
        .into_iter()
        .filter_map(|id| match (entities.get(&id), current.get(&id)) {
            (Some(new), old) if old != Some(new) => Some(EntityWrite::Put {
                id,
                entity: new.clone(),
            }),
            (None, Some(_)) => Some(EntityWrite::Delete { id }),
            _ => None,
        })
        .collect();
    Ok(EntityOpsOutcome {
        writes,
        results,
        next_entity_seq: seq,
        entities,
    })
}

/// The entities keyed by id, ordered by entity number (`entity_1000` after `entity_999`).
pub fn view(entities: &Relationships) -> IndexMap<String, Entity> {
    let mut items: Vec<(&String, &Entity)> = entities.iter().collect();
    crate::order::sort_by(&mut items, |(a, _), (b, _)| {
        let number = |id: &str| entity_number(id).unwrap_or(u32::MAX);
        (number(a), a.as_str()).cmp(&(number(b), b.as_str()))
    });
    items
        .into_iter()
        .map(|(id, e)| (id.clone(), e.clone()))
        .collect()
}

/// The id of the entity called `name_or_alias` (case-insensitive, trimmed). A name match
/// wins over an alias match; among equals, the oldest entity wins.
pub fn find(entities: &Relationships, name_or_alias: &str) -> Option<String> {
    let wanted = fold(name_or_alias);
    if wanted.is_empty() {
        return None;
    }
    let ordered = view(entities);
    let by_name = ordered.iter().find(|(_, e)| fold(&e.name) == wanted);
    let by_alias = || {
        ordered
            .iter()
            .find(|(_, e)| e.alias.iter().any(|a| fold(a) == wanted))
    };
    by_name.or_else(by_alias).map(|(id, _)| id.clone())
}

fn apply_op(
    entities: &mut Relationships,
    seq: &mut u32,
    index: usize,
    op: &EntityOp,
) -> Result<(OpKind, String)> {
    validate(index, op)?;
    let name = op.name.as_deref().map(str::trim).unwrap_or("");
    match op.op {
        OpKind::Add => {
            if name.is_empty() {
                return Err(Error::invalid(format!(
                    "ops[{index}].name is required for add"
                )));
            }
            if let Some(id) = find(entities, name) {
                let entity = merged(&entities[&id], &id, op, false)?;
                entities.insert(id.clone(), entity);
                return Ok((OpKind::Update, id));
            }
            if entities.len() >= MAX_ENTITIES {
                return Err(Error::invalid(format!(
                    "ops[{index}]: an NPC holds at most {MAX_ENTITIES} entities"
                )));
            }
            let id = entity_id(*seq);
            let fresh = Entity {
                name: name.to_owned(),
                ..Entity::default()
            };
            let entity = merged(&fresh, &id, op, false)?;
            *seq = seq.saturating_add(1);
            entities.insert(id.clone(), entity);
            Ok((OpKind::Add, id))
        }
        OpKind::Update => {
            let (id, by_id) = locate(entities, index, op)?;
            let entity = merged(&entities[&id], &id, op, by_id)?;
            entities.insert(id.clone(), entity);
            Ok((OpKind::Update, id))
        }
        OpKind::Delete => {
            let (id, _) = locate(entities, index, op)?;
            crate::order::remove_where(entities, |key, _| *key == id);
            Ok((OpKind::Delete, id))
        }
    }
}

/// Finds the op's target: by `id` if it exists, else by name or alias. The flag tells
/// whether the id matched (only then may the op rename the entity).
fn locate(entities: &Relationships, index: usize, op: &EntityOp) -> Result<(String, bool)> {
    let id = op.id.as_deref().map(str::trim).filter(|s| !s.is_empty());
    if let Some(id) = id.filter(|id| entities.contains_key(*id)) {
        return Ok((id.to_owned(), true));
    }
    let name = op.name.as_deref().map(str::trim).filter(|s| !s.is_empty());
    if let Some(found) = name.and_then(|n| find(entities, n)) {
        return Ok((found, false));
    }
    match id.or(name) {
        Some(key) => Err(Error::not_found(format!("entity {key} not found"))),
        None => Err(Error::invalid(format!(
            "ops[{index}] needs an id or a name"
        ))),
    }
}

/// `entity` with the op's aliases, titles and remark merged in, renamed when `rename`.
/// Nothing is changed in place, so a failing op leaves no trace.
fn merged(entity: &Entity, id: &str, op: &EntityOp, rename: bool) -> Result<Entity> {
    let mut entity = entity.clone();
    let new_name = op.name.as_deref().map(str::trim).unwrap_or("");
    if rename && !new_name.is_empty() && new_name != entity.name {
        let old = std::mem::replace(&mut entity.name, new_name.to_owned());
        push_folded(&mut entity.alias, &old);
    }
    for alias in op.alias.iter().flatten() {
        push_folded(&mut entity.alias, alias);
    }
    // The name is never also an alias.
    let name = fold(&entity.name);
    entity.alias.retain(|a| fold(a) != name);
    for title in op.title.iter().flatten() {
        push_folded(&mut entity.title, title);
    }
    if let Some(remark) = op
        .remark
        .as_deref()
        .map(str::trim)
        .filter(|r| !r.is_empty())
    {
        entity.remark = remark.to_owned();
    }
    if entity.alias.len() > MAX_LIST_ITEMS || entity.title.len() > MAX_LIST_ITEMS {
        return Err(Error::invalid(format!(
            "entity {id} would have more than {MAX_LIST_ITEMS} aliases or titles"
        )));
    }
    Ok(entity)
}

/// Checks the op's own sizes before anything is applied.
fn validate(index: usize, op: &EntityOp) -> Result<()> {
    check_parts(
        &format!("ops[{index}]"),
        op.name.as_deref(),
        [
            ("alias", op.alias.as_deref()),
            ("title", op.title.as_deref()),
        ],
        op.remark.as_deref(),
    )
}

/// The size rules of an entity's parts, shared by ops and stored entities; `what` names
/// the op or entity in the error.
fn check_parts(
    what: &str,
    name: Option<&str>,
    lists: [(&str, Option<&[String]>); 2],
    remark: Option<&str>,
) -> Result<()> {
    let too_long = |text: &str, max: usize| text.trim().chars().count() > max;
    if name.is_some_and(|n| too_long(n, MAX_NAME_CHARS)) {
        return Err(Error::invalid(format!(
            "{what}.name must be at most {MAX_NAME_CHARS} characters"
        )));
    }
    for (field, list) in lists {
        let Some(list) = list else { continue };
        if list.len() > MAX_LIST_ITEMS {
            return Err(Error::invalid(format!(
                "{what}.{field} must have at most {MAX_LIST_ITEMS} items"
            )));
        }
        if list.iter().any(|item| too_long(item, MAX_NAME_CHARS)) {
            return Err(Error::invalid(format!(
                "{what}.{field} items must be at most {MAX_NAME_CHARS} characters"
            )));
        }
    }
    if remark.is_some_and(|r| too_long(r, MAX_REMARK_CHARS)) {
        return Err(Error::invalid(format!(
            "{what}.remark must be at most {MAX_REMARK_CHARS} characters"
        )));
    }
    Ok(())
}

/// Checks stored entities as a whole (an import): at most [`MAX_ENTITIES`], each keyed
/// `entity_NNN`, named, and within the sizes an op may give it.
pub fn validate_stored<'a>(
    entities: impl ExactSizeIterator<Item = (&'a String, &'a Entity)>,
    what: &str,
) -> Result<()> {
    if entities.len() > MAX_ENTITIES {
        return Err(Error::invalid(format!(
            "{what} has more than {MAX_ENTITIES} entities"
        )));
    }
    for (id, e) in entities {
        let at = format!("{what}[{id:?}]");
        if entity_number(id).map(entity_id).as_deref() != Some(id.as_str()) {
            return Err(Error::invalid(format!("{at}: ids are entity_NNN")));
        }
        if e.name.trim().is_empty() {
            return Err(Error::invalid(format!("{at}.name cannot be empty")));
        }
        check_parts(
            &at,
            Some(&e.name),
            [("alias", Some(&e.alias)), ("title", Some(&e.title))],
            Some(&e.remark),
        )?;
        crate::memory::check_source_turns(&e.source_turns, format_args!("{at}.source_turns"))?;
    }
    Ok(())
}

/// Appends `item` (trimmed) unless it is blank or already in `list`, case-insensitively.
fn push_folded(list: &mut Vec<String>, item: &str) {
    let item = item.trim();
    let folded = fold(item);
    if !folded.is_empty() && !list.iter().any(|x| fold(x) == folded) {
        list.push(item.to_owned());
    }
}

fn fold(text: &str) -> String {
    text.trim().to_lowercase()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn op(kind: OpKind, name: &str) -> EntityOp {
        EntityOp {
            op: kind,
            id: None,
            name: (!name.is_empty()).then(|| name.to_owned()),
            alias: None,
            title: None,
            remark: None,
        }
    }

    fn strings(items: &[&str]) -> Vec<String> {
        items.iter().map(|s| s.to_string()).collect()
    }

    fn run(current: &Relationships, seq: u32, ops: &[EntityOp]) -> EntityOpsOutcome {
        apply_ops(current, seq, ops, true).unwrap()
    }

    fn seeded() -> EntityOpsOutcome {
        let mut hong = op(OpKind::Add, "Xiao Hong");
        hong.alias = Some(strings(&["Honghong"]));
        hong.title = Some(strings(&["Classmate"]));
        hong.remark = Some("Often plays basketball together".into());
        run(
            &Relationships::new(),
            1,
            &[hong, op(OpKind::Add, "Teacher Zhang")],
        )
    }

    #[test]
    fn dreamt_ops_link_their_entities_without_repeats_and_explicit_ops_keep_the_links() {
        let ops = [
            op(OpKind::Add, "Anna"),
            op(OpKind::Add, "Ben"),
            op(OpKind::Update, "anna"),
            op(OpKind::Update, "nobody"),
        ];
        let links = [
            strings(&["t1"]),
            strings(&["t2"]),
            strings(&["t3", "t1"]),
            strings(&["t9"]),
        ];
        let out = apply_linked_ops(&Relationships::new(), 1, &ops, &links, false).unwrap();
        assert_eq!(out.entities["entity_001"].source_turns, ["t1", "t3"]);
        assert_eq!(out.entities["entity_002"].source_turns, ["t2"]);
        // The same ops from the same turns again: nothing changes, nothing is written.
        let again = apply_linked_ops(&out.entities, 3, &ops, &links, false).unwrap();
        assert!(again.writes.is_empty(), "{:?}", again.writes);
        // A new turn about Anna: one write, one more link.
        let later = apply_linked_ops(
            &out.entities,
            3,
            &[op(OpKind::Update, "Anna")],
            &[strings(&["t7"])],
            false,
        )
        .unwrap();
        assert_eq!(later.writes.len(), 1);
        assert_eq!(
            later.entities["entity_001"].source_turns,
            ["t1", "t3", "t7"]
        );
        // An explicit op changes the entity, not its links.
        let mut remark = op(OpKind::Update, "Anna");
        remark.remark = Some("sister".into());
        let explicit = apply_ops(&later.entities, 3, &[remark], true).unwrap();
        assert_eq!(
            explicit.entities["entity_001"].source_turns,
            ["t1", "t3", "t7"]
        );
        assert_eq!(explicit.entities["entity_001"].remark, "sister");
    }

    #[test]
    fn stored_links_are_turn_ids() {
        let entity = |links: Vec<String>| Entity {
            name: "Anna".into(),
            source_turns: links,
            ..Entity::default()
        };
        let id = "entity_001".to_string();
        let ok = entity(strings(&["turn_1"]));
        assert!(validate_stored([(&id, &ok)].into_iter(), "relationship").is_ok());
        let too_many = entity((0..65).map(|i| format!("turn_{i}")).collect());
        let err = validate_stored([(&id, &too_many)].into_iter(), "relationship").unwrap_err();
        assert!(
            matches!(&err, Error::InvalidInput(m) if m.contains("source_turns")),
            "{err:?}"
        );
    }

    #[test]
    fn add_assigns_sequential_ids_and_writes_them() {
        let out = seeded();
        assert_eq!(
            out.results,
            [
                (OpKind::Add, "entity_001".to_string()),
                (OpKind::Add, "entity_002".to_string())
            ]
        );
        assert_eq!(out.next_entity_seq, 3);
        assert_eq!(out.writes.len(), 2);
        let hong = &out.entities["entity_001"];
        assert_eq!(hong.alias, ["Honghong"]);
        assert_eq!(hong.remark, "Often plays basketball together");
    }

    #[test]
    fn adding_a_known_name_or_alias_updates_instead() {
        let base = seeded();
        let mut again = op(OpKind::Add, "HONGHONG");
        again.title = Some(strings(&["classmate", "Neighbour"]));
        let out = run(&base.entities, base.next_entity_seq, &[again]);
        assert_eq!(out.results, [(OpKind::Update, "entity_001".to_string())]);
        assert_eq!(out.next_entity_seq, base.next_entity_seq);
        assert_eq!(out.entities.len(), 2);
        let hong = &out.entities["entity_001"];
        assert_eq!(hong.name, "Xiao Hong");
        assert_eq!(hong.title, ["Classmate", "Neighbour"]);
    }

    #[test]
    fn update_by_name_merges_lists_and_replaces_remark_but_keeps_name() {
        let base = seeded();
        let mut up = op(OpKind::Update, "xiao hong");
        up.alias = Some(strings(&["honghong", "小红"]));
        up.remark = Some("Moved to Shanghai".into());
        let out = run(&base.entities, base.next_entity_seq, &[up]);
        let hong = &out.entities["entity_001"];
        assert_eq!(hong.name, "Xiao Hong");
        assert_eq!(hong.alias, ["Honghong", "小红"]);
        assert_eq!(hong.remark, "Moved to Shanghai");
        assert_eq!(
            out.writes,
            [EntityWrite::Put {
                id: "entity_001".into(),
                entity: hong.clone()
            }]
        );
    }

    #[test]
    fn blank_remark_keeps_the_old_one() {
        let base = seeded();
        let mut up = op(OpKind::Update, "Xiao Hong");
        up.remark = Some("  ".into());
        let out = run(&base.entities, base.next_entity_seq, &[up]);
        assert_eq!(out.entities, base.entities);
        assert!(out.writes.is_empty());
        assert_eq!(out.results.len(), 1);
    }

    #[test]
    fn rename_needs_the_id_and_keeps_the_old_name_as_alias() {
        let base = seeded();
        let by_name = op(OpKind::Update, "Teacher Zhang");
        let mut by_id = op(OpKind::Update, "Zhang Wei");
        by_id.id = Some("entity_002".into());
        let out = run(&base.entities, base.next_entity_seq, &[by_name, by_id]);
        let zhang = &out.entities["entity_002"];
        assert_eq!(zhang.name, "Zhang Wei");
        assert_eq!(zhang.alias, ["Teacher Zhang"]);
        // The old name still finds the entity.
        assert_eq!(
            find(&out.entities, "teacher zhang").as_deref(),
            Some("entity_002")
        );
    }

    #[test]
    fn deleted_ids_are_never_reused() {
        let base = seeded();
        let mut del = op(OpKind::Delete, "");
        del.id = Some("entity_002".into());
        let out = run(
            &base.entities,
            base.next_entity_seq,
            &[del, op(OpKind::Add, "Xiao Li")],
        );
        assert!(!out.entities.contains_key("entity_002"));
        assert_eq!(out.results[1], (OpKind::Add, "entity_003".to_string()));
        assert_eq!(out.next_entity_seq, 4);
        assert!(out.writes.contains(&EntityWrite::Delete {
            id: "entity_002".into()
        }));
    }

    #[test]
    fn ops_in_one_call_see_each_other() {
        let out = run(
            &Relationships::new(),
            1,
            &[
                op(OpKind::Add, "阿澈"),
                op(OpKind::Update, "阿澈"),
                op(OpKind::Delete, "阿澈"),
            ],
        );
        assert_eq!(out.results.len(), 3);
        assert!(out.entities.is_empty());
        // Created and deleted in the same call: nothing to write, but the id is spent.
        assert!(out.writes.is_empty());
        assert_eq!(out.next_entity_seq, 2);
    }

    #[test]
    fn strict_mode_reports_missing_and_invalid_ops() {
        let base = seeded();
        let err = apply_ops(&base.entities, 3, &[op(OpKind::Delete, "Nobody")], true);
        assert_eq!(
            err.unwrap_err(),
            Error::not_found("entity Nobody not found")
        );
        let err = apply_ops(&base.entities, 3, &[op(OpKind::Add, "  ")], true).unwrap_err();
        assert!(matches!(err, Error::InvalidInput(_)));
        let mut long = op(OpKind::Add, "X");
        long.remark = Some("a".repeat(MAX_REMARK_CHARS + 1));
        assert!(apply_ops(&base.entities, 3, &[long], true).is_err());
        let mut many = op(OpKind::Add, "X");
        many.alias = Some((0..=MAX_LIST_ITEMS).map(|i| i.to_string()).collect());
        assert!(apply_ops(&base.entities, 3, &[many], true).is_err());
        let long_name = op(OpKind::Add, &"名".repeat(MAX_NAME_CHARS + 1));
        assert!(apply_ops(&base.entities, 3, &[long_name], true).is_err());
        assert!(apply_ops(
            &base.entities,
            3,
            &[op(OpKind::Add, &"名".repeat(200))],
            true
        )
        .is_ok());
    }

    #[test]
    fn lenient_mode_skips_what_it_cannot_apply() {
        let base = seeded();
        let mut grown = op(OpKind::Update, "Xiao Hong");
        grown.alias = Some((0..MAX_LIST_ITEMS).map(|i| i.to_string()).collect());
        let out = apply_ops(
            &base.entities,
            3,
            &[
                op(OpKind::Delete, "Nobody"),
                op(OpKind::Add, ""),
                grown,
                op(OpKind::Add, "Xiao Li"),
            ],
            false,
        )
        .unwrap();
        assert_eq!(out.results, [(OpKind::Add, "entity_003".to_string())]);
        assert_eq!(out.entities["entity_001"], base.entities["entity_001"]);
        assert_eq!(out.writes.len(), 1);
    }

    #[test]
    fn view_orders_by_entity_number() {
        let mut entities = Relationships::new();
        for n in [1000, 999, 2] {
            entities.insert(entity_id(n), Entity::default());
        }
        let keys: Vec<_> = view(&entities).into_keys().collect();
        assert_eq!(keys, ["entity_002", "entity_999", "entity_1000"]);
        // A sequence behind the stored ids never hands out a taken id.
        let out = run(&entities, 5, &[op(OpKind::Add, "New")]);
        assert_eq!(out.results[0].1, "entity_1001");
    }

    #[test]
    fn find_prefers_names_over_aliases() {
        let mut entities = Relationships::new();
        entities.insert(
            entity_id(1),
            Entity {
                name: "Mom".into(),
                alias: strings(&["Ma"]),
                ..Entity::default()
            },
        );
        entities.insert(
            entity_id(2),
            Entity {
                name: "Ma".into(),
                ..Entity::default()
            },
        );
        assert_eq!(find(&entities, " ma ").as_deref(), Some("entity_002"));
        assert_eq!(find(&entities, "MOM").as_deref(), Some("entity_001"));
        assert_eq!(find(&entities, "Dad"), None);
        assert_eq!(find(&entities, ""), None);
    }
}
