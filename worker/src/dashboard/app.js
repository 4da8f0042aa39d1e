// The inspection dashboard: plain DOM, no framework. Every piece of data is put
// in the page with textContent (memories are user text). The admin token lives in this tab's
// sessionStorage and goes only into the Authorization header of same-origin /api calls.
'use strict';

const TOKEN_KEY = 'hippo.admin';
const LANG_KEY = 'hippo.lang';

const TEXT = {
  en: {
    title: 'Hippo memory', signout: 'Sign out', token: 'Admin token', signin: 'Sign in',
    tokenHint: "Kept in this tab's session storage only; never sent in a URL.",
    searchNpcs: 'Search NPCs', profile: 'Profile', diary: 'Diary', memories: 'Memories',
    dreams: 'Dreams', playground: 'Retrieval', loading: 'Loading…', ready: 'Ready',
    badToken: 'The admin token was refused', pkg: 'Personal knowledge graph', field: 'Field',
    value: 'Value', relationships: 'Relationships', name: 'Name', alias: 'Alias', titleCol: 'Title',
    remark: 'Remark', prior: 'Before the window (merged)', noDiary: 'No diary yet',
    summary: 'Summary', type: 'Type', strength: 'Strength / tier', pinnedCol: 'Pinned',
    sensitiveCol: 'Sensitive', source: 'Source', history: 'History', actions: 'Actions',
    edit: 'Edit', pin: 'Pin', unpin: 'Unpin', markSensitive: 'Mark sensitive', unmark: 'Unmark',
    del: 'Delete', supersededBy: 'superseded by', showAll: 'All collections',
    confirmEdit: 'Save the new text of this memory?', confirmPin: 'Pin this memory?',
    confirmUnpin: 'Unpin this memory?', confirmSensitive: 'Mark this memory sensitive? It will never be said to a live character.',
    confirmUnmark: 'Clear the sensitive mark of this memory?', confirmDelete: 'Delete this memory for good?',
    newText: 'New text of the memory', saved: 'Saved', deleted: 'Deleted', dryRun: 'Dry run',
    dreamNow: 'Dream now', confirmDream: 'Dream now? What it extracts is written.', report: 'Report',
    diaryText: 'Diary', extracted: 'Extracted memories', action: 'Action', pkgUpdates: 'PKG updates',
    entityOps: 'Entity operations', cleanup: 'Cleanup', error: 'Error', noReports: 'No dream run from this page yet',
    query: 'Query', timeHint: 'Time hint', includeSensitive: 'Include sensitive', searchBtn: 'Search',
    score: 'Score', signals: 'Signals', noHits: 'Nothing found', brief: 'Session brief', maxTokens: 'Max tokens',
    makeBrief: 'Make brief', tokens: 'tokens', yes: 'yes', count: 'memories',
    collection: 'Collection', collMemory: 'memories', collContent: 'quotes (turns)', collDiary: 'diary days',
    collEmotion: 'emotion', collAll: 'all', details: 'Details', sourceTurns: 'Source turns',
    noSources: 'No source turns (written through the API, or before links existed)',
    noQuote: 'no quote record (the turn held only sensitive sentences, or it is past the quotes loaded)',
    keywords: 'Keywords', created: 'Created', updated: 'Updated', eventTime: 'Event time',
    accessCount: 'Retrieved', confidence: 'Confidence', importance: 'Importance', inWindow: 'in the window',
    recordOnly: 'outside the window',
  },
  zh: {
    title: 'Hippo 记忆面板', signout: '退出', token: '管理员令牌', signin: '登录',
    tokenHint: '只保存在本标签页的会话存储中，绝不出现在网址里。',
    searchNpcs: '搜索角色', profile: '档案', diary: '日记', memories: '记忆', dreams: '梦境',
    playground: '检索', loading: '加载中…', ready: '就绪', badToken: '管理员令牌被拒绝',
    pkg: '个人知识图谱', field: '字段', value: '值', relationships: '人际关系', name: '名字',
    alias: '别名', titleCol: '称谓', remark: '备注', prior: '窗口之前（已合并）', noDiary: '还没有日记',
    summary: '内容', type: '类型', strength: '强度 / 层级', pinnedCol: '置顶', sensitiveCol: '敏感',
    source: '来源', history: '历史', actions: '操作', edit: '编辑', pin: '置顶', unpin: '取消置顶',
    markSensitive: '标为敏感', unmark: '取消敏感', del: '删除', supersededBy: '已被替代：',
    showAll: '全部集合', confirmEdit: '保存这条记忆的新内容？', confirmPin: '置顶这条记忆？',
    confirmUnpin: '取消置顶这条记忆？', confirmSensitive: '把这条记忆标为敏感？它将不会被说给直播中的角色。',
    confirmUnmark: '取消这条记忆的敏感标记？', confirmDelete: '永久删除这条记忆？', newText: '记忆的新内容',
    saved: '已保存', deleted: '已删除', dryRun: '试运行', dreamNow: '立即做梦',
    confirmDream: '现在做梦？提取的内容会被写入。', report: '报告', diaryText: '日记', extracted: '提取的记忆',
    action: '处理', pkgUpdates: '档案更新', entityOps: '关系操作', cleanup: '清理', error: '错误',
    noReports: '本页还没有运行过梦境', query: '查询', timeHint: '时间提示', includeSensitive: '包含敏感',
    searchBtn: '搜索', score: '得分', signals: '信号', noHits: '没有结果', brief: '会话简报',
    maxTokens: '最大令牌数', makeBrief: '生成简报', tokens: '令牌', yes: '是', count: '条记忆',
    collection: '集合', collMemory: '记忆', collContent: '原话（对话轮次）', collDiary: '日记（按天）',
    collEmotion: '情绪', collAll: '全部', details: '详情', sourceTurns: '来源对话',
    noSources: '没有来源对话（通过接口写入，或写于来源链接之前）',
    noQuote: '没有原话记录（这一轮只有敏感句子，或不在已加载的原话中）',
    keywords: '关键词', created: '创建', updated: '更新', eventTime: '事件时间', accessCount: '被检索次数',
    confidence: '可信度', importance: '重要度', inWindow: '在窗口内', recordOnly: '在窗口外',
  },
};

const state = { lang: 'en', npcs: [], npcid: null, tab: 'profile', reports: [], quotes: null };
const $ = (sel) => document.querySelector(sel);
const t = (key) => TEXT[state.lang][key] ?? key;

/** An element with attributes and children (strings become text nodes, never HTML). */
function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith('on')) node.addEventListener(k.slice(2), v);
    else if (k === 'className') node.className = v;
    // Through the CSSOM: the page's CSP forbids style attributes.
    else if (k === 'style') node.style.cssText = v;
    else node.setAttribute(k, v === true ? '' : String(v));
  }
  for (const child of children.flat()) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function status(message, isError = false) {
  const node = $('#status');
  node.textContent = message;
  node.className = isError ? 'error' : '';
}

/** A same-origin /api call with the admin token; throws with the API's message. */
async function api(method, path, body) {
  const token = sessionStorage.getItem(TOKEN_KEY);
  const res = await fetch(path, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const data = await res.json().catch(() => ({}));
  if (!res.ok) {
    const err = new Error(data.message ?? `${res.status}`);
    err.status = res.status;
    throw err;
  }
  return data;
}

/** Runs `work`, marking the page busy then ready (or the error). */
async function busy(work) {
  document.body.dataset.state = 'loading';
  status(t('loading'));
  try {
    const result = await work();
    status(t('ready'));
    document.body.dataset.state = 'ready';
    return result;
  } catch (err) {
    status(err.message, true);
    document.body.dataset.state = 'ready';
    if (err.status === 401) signOut();
    return undefined;
  }
}

function applyLang() {
  document.documentElement.lang = state.lang === 'zh' ? 'zh-CN' : 'en';
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const node of document.querySelectorAll('[data-i18n-placeholder]')) node.placeholder = t(node.dataset.i18nPlaceholder);
  $('#lang').textContent = state.lang === 'zh' ? 'English' : '中文';
}

function signOut() {
  sessionStorage.removeItem(TOKEN_KEY);
  $('#app').hidden = true;
  $('#signout').hidden = true;
  $('#login').hidden = false;
}

async function signIn() {
  const npcs = [];
  let after;
  do {
    const page = await api('GET', `/api/npc?limit=200${after ? `&after=${encodeURIComponent(after)}` : ''}`);
    npcs.push(...page.npcs);
    after = page.next;
  } while (after && npcs.length < 2000);
  state.npcs = npcs;
  $('#login').hidden = true;
  $('#app').hidden = false;
  $('#signout').hidden = false;
  renderNpcs();
}

function renderNpcs() {
  const needle = $('#search').value.trim().toLowerCase();
  const list = $('#npcs');
  list.replaceChildren(
    ...state.npcs
      .filter((n) => !needle || n.npcid.toLowerCase().includes(needle) || n.display_name.toLowerCase().includes(needle))
      .map((n) =>
        el('li', { 'data-npcid': n.npcid, className: n.npcid === state.npcid ? 'selected' : '', onclick: () => openNpc(n.npcid) },
          n.display_name || n.npcid, el('small', {}, n.npcid))),
  );
}

async function openNpc(npcid) {
  state.npcid = npcid;
  state.reports = [];
  state.quotes = null;
  const npc = state.npcs.find((n) => n.npcid === npcid);
  $('#npc-title').textContent = npc?.display_name ? `${npc.display_name} · ${npcid}` : npcid;
  $('#npc').hidden = false;
  renderNpcs();
  await showTab(state.tab);
}

async function showTab(tab) {
  state.tab = tab;
  for (const b of document.querySelectorAll('#tabs button')) b.classList.toggle('active', b.dataset.tab === tab);
  const view = $('#view');
  view.dataset.tab = tab;
  await busy(async () => view.replaceChildren(...(await VIEWS[tab](state.npcid))));
}

const enc = encodeURIComponent;

function table(headers, rows) {
  return el('table', {}, el('thead', {}, el('tr', {}, headers.map((h) => el('th', {}, h)))), el('tbody', {}, rows));
}

const VIEWS = {
  async profile(npcid) {
    const [pkg, rel] = await Promise.all([api('GET', `/api/pkg/${enc(npcid)}`), api('GET', `/api/relationship/${enc(npcid)}`)]);
    const value = (v) => (Array.isArray(v) ? v.join(', ') : String(v));
    return [
      el('h3', {}, t('pkg')),
      table([t('field'), t('value')], Object.entries(pkg.pkg).map(([k, v]) => el('tr', {}, el('td', {}, k), el('td', {}, value(v))))),
      el('h3', {}, t('relationships')),
      table([t('name'), t('alias'), t('titleCol'), t('remark')],
        Object.entries(rel.relationship).map(([id, e]) =>
          el('tr', { 'data-id': id }, el('td', {}, e.name), el('td', {}, e.alias.join(', ')), el('td', {}, e.title.join(', ')), el('td', {}, e.remark)))),
    ];
  },

  async diary(npcid) {
    // The window (what the character's prompt holds) and the dream's per-day records, which
    // keep the days that left the window searchable.
    const [diary, records] = await Promise.all([
      api('GET', `/api/diary/${enc(npcid)}`),
      api('GET', `/api/memories/${enc(npcid)}?collection=diary&limit=500`),
    ]);
    const days = new Map();
    for (const m of records.memories) {
      const date = m.id.replace(/^diary_/, '');
      days.set(date, { date, summary: m.summary, inWindow: false, sensitive: m.sensitive });
    }
    for (const d of diary.dailies) days.set(d.date, { ...days.get(d.date), date: d.date, summary: d.summary, inWindow: true });
    const out = [];
    if (!diary.prior && days.size === 0) return [el('p', {}, t('noDiary'))];
    const sorted = [...days.values()].sort((a, b) => b.date.localeCompare(a.date));
    out.push(el('ol', { className: 'timeline' },
      sorted.map((d) => el('li', { 'data-date': d.date, className: d.inWindow ? '' : 'outside' },
        el('div', { className: 'date' }, d.date, ' ', el('span', { className: 'tag' }, t(d.inWindow ? 'inWindow' : 'recordOnly')),
          d.sensitive ? el('span', { className: 'tag sensitive' }, t('sensitiveCol')) : ''),
        el('div', {}, d.summary)))));
    if (diary.prior) out.push(el('h3', {}, t('prior')), el('div', { className: 'prior', id: 'prior' }, diary.prior));
    return out;
  },

  async memories(npcid) {
    const collection = sessionStorage.getItem('hippo.collection') ?? 'memory';
    const list = await api('GET', `/api/memories/${enc(npcid)}?include_superseded=true&limit=500&collection=${enc(collection)}`);
    const picker = el('select', { id: 'collection', onchange: (e) => { sessionStorage.setItem('hippo.collection', e.target.value); showTab('memories'); } },
      [['memory', 'collMemory'], ['content', 'collContent'], ['diary', 'collDiary'], ['emotion', 'collEmotion'], ['all', 'collAll']]
        .map(([value, label]) => el('option', { value, selected: value === collection }, t(label))));
    const rows = list.memories.flatMap((m) => {
      const act = (label, className, handler) => el('button', { type: 'button', className, 'data-action': label, onclick: handler }, t(label));
      const detail = el('tr', { className: 'detail', 'data-detail-for': m.id, hidden: true }, el('td', { colspan: 9 }));
      const row = el('tr', { 'data-id': m.id, className: m.superseded_by ? 'superseded' : '' },
        el('td', { className: 'summary' }, m.summary),
        el('td', {}, m.type),
        el('td', { className: 'collection' }, el('span', { className: `tag coll-${m.collection}` }, m.collection)),
        el('td', { className: `tier-${m.tier}` }, `${m.strength.toFixed(2)} · ${m.tier}`),
        el('td', {}, m.pinned ? el('span', { className: 'tag pinned' }, t('yes')) : ''),
        el('td', {}, m.sensitive ? el('span', { className: 'tag sensitive' }, m.sensitive_category ?? t('yes')) : ''),
        el('td', {}, m.source, m.source_turns?.length ? el('small', { className: 'turns' }, ` · ${m.source_turns.length}↩`) : ''),
        el('td', {}, m.superseded_by ? `${t('supersededBy')} ${m.superseded_by}` : `×${m.encounter_count}`),
        el('td', { className: 'actions' },
          act('details', '', () => toggleDetail(m, detail)),
          act('edit', '', () => editMemory(m)),
          m.pinned ? act('unpin', '', () => patchMemory(m, { pinned: false }, 'confirmUnpin'))
            : act('pin', '', () => patchMemory(m, { pinned: true }, 'confirmPin')),
          m.sensitive ? act('unmark', '', () => patchMemory(m, { sensitive: false }, 'confirmUnmark'))
            : act('markSensitive', '', () => patchMemory(m, { sensitive: true }, 'confirmSensitive')),
          act('del', 'danger', () => deleteMemory(m))));
      return [row, detail];
    });
    return [
      el('div', { className: 'row' }, el('label', {}, `${t('collection')} `, picker), el('span', { id: 'memory-count' }, `${list.count} ${t('count')}`)),
      table([t('summary'), t('type'), t('collection'), t('strength'), t('pinnedCol'), t('sensitiveCol'), t('source'), t('history'), t('actions')], rows),
    ];
  },

  async dreams(npcid) {
    const run = (dryRun) => async () => {
      if (!dryRun && !confirm(t('confirmDream'))) return;
      const res = await busy(() => api('POST', `/api/dream/${enc(npcid)}${dryRun ? '?dry_run=true' : ''}`));
      if (res) {
        state.quotes = null;
        state.reports.unshift({ at: new Date().toISOString(), dryRun, report: res.report });
        await showTab('dreams');
      }
    };
    const out = [el('div', { className: 'row' },
      el('button', { type: 'button', id: 'dry-run', onclick: run(true) }, t('dryRun')),
      el('button', { type: 'button', id: 'dream-now', className: 'primary', onclick: run(false) }, t('dreamNow')))];
    if (state.reports.length === 0) out.push(el('p', {}, t('noReports')));
    for (const { at, dryRun, report } of state.reports) {
      const x = report.extractions;
      out.push(el('div', { className: 'report' },
        el('h3', {}, `${t('report')} · ${at}${dryRun ? ` · ${t('dryRun')}` : ''}`),
        report.diary ? el('p', {}, el('b', {}, `${t('diaryText')} ${report.diary.date}: `), report.diary.diary_text) : '',
        x ? table([t('summary'), t('type'), t('action'), t('pinnedCol'), t('sensitiveCol')],
          x.memories.map((m) => el('tr', {}, el('td', {}, m.summary), el('td', {}, m.type), el('td', {}, m.action),
            el('td', {}, m.pinned ? t('yes') : ''), el('td', {}, m.sensitive ? (m.sensitive_category ?? t('yes')) : '')))) : '',
        x ? el('p', {}, `${t('pkgUpdates')}: ${x.pkg_updates.map((u) => u.key).join(', ') || '—'} · ${t('entityOps')}: ${x.entity_ops.map((o) => `${o.op} ${o.name ?? o.id}`).join(', ') || '—'}`) : '',
        report.cleanup ? el('p', {}, `${t('cleanup')}: ${report.cleanup.content_hybrid_deleted} / ${report.cleanup.emotion_v2_deleted}`) : '',
        report.error ? el('p', { className: 'error' }, `${t('error')}: ${report.error}`) : ''));
    }
    return out;
  },

  async playground(npcid) {
    const query = el('input', { id: 'query', type: 'search', size: 40, placeholder: t('query') });
    const hint = el('input', { id: 'time-hint', size: 12, placeholder: t('timeHint') });
    const sens = el('input', { id: 'include-sensitive', type: 'checkbox' });
    const results = el('div', { id: 'hits' });
    const search = async (e) => {
      e?.preventDefault();
      const res = await busy(() => api('POST', `/api/memories/${enc(npcid)}/search`, {
        query: query.value, debug: true, include_sensitive: sens.checked, ...(hint.value ? { time_hint: hint.value } : {}),
      }));
      if (!res) return;
      if (res.memories.length === 0) return results.replaceChildren(el('p', {}, t('noHits')));
      const max = Math.max(...res.memories.flatMap((m) => Object.values(m.signals ?? {}).map(Math.abs)), 1e-9);
      results.replaceChildren(table([t('summary'), t('type'), t('score'), t('signals')], res.memories.map((m) =>
        el('tr', { 'data-id': m.id }, el('td', {}, m.summary, m.sensitive ? el('span', { className: 'tag sensitive' }, ` ${m.sensitive_category ?? ''}`) : ''),
          el('td', {}, m.type), el('td', {}, m.score.toFixed(3)),
          el('td', { className: 'signals' }, Object.entries(m.signals ?? {}).map(([k, v]) =>
            el('div', { 'data-signal': k }, el('span', { className: 'bar', style: `width:${Math.round((Math.abs(v) / max) * 80)}px` }), `${k} ${v.toFixed(3)}`)))))));
    };
    const budget = el('input', { id: 'max-tokens', type: 'number', value: 300, min: 1, max: 32768 });
    const briefOut = el('pre', { id: 'brief' });
    const brief = async () => {
      const res = await busy(() => api('POST', `/api/npc/${enc(npcid)}/brief`, { max_tokens: Number(budget.value), ...(query.value ? { query: query.value } : {}) }));
      if (res) briefOut.textContent = `${res.text}\n\n(${res.tokens}/${res.max_tokens} ${t('tokens')})`;
    };
    return [
      el('form', { className: 'row', onsubmit: search }, query, hint, el('label', {}, sens, ' ', t('includeSensitive')),
        el('button', { type: 'submit', className: 'primary', id: 'search-button' }, t('searchBtn'))),
      results,
      el('h3', {}, t('brief')),
      el('div', { className: 'row' }, el('label', {}, `${t('maxTokens')} `, budget), el('button', { type: 'button', id: 'brief-button', onclick: brief }, t('makeBrief'))),
      briefOut,
    ];
  },
};

/** Quote records by the turn they keep: turn id → the stored (sensitive-free) text. The
 * first pages of the `content` collection, loaded once per NPC. */
const QUOTE_PAGES = 4;
async function quotes(npcid) {
  if (state.quotes) return state.quotes;
  const map = new Map();
  let offset = 0;
  for (let page = 0; page < QUOTE_PAGES && offset !== undefined; page++) {
    const list = await api('GET', `/api/memories/${enc(npcid)}?collection=content&limit=500&offset=${offset}`);
    for (const q of list.memories) for (const turn of q.source_turns ?? []) map.set(turn, q.summary);
    offset = list.next_offset;
  }
  state.quotes = map;
  return map;
}

/** A memory's detail row: its dates, scores and keywords, and the turns it came from with
 * their quotes. */
async function toggleDetail(m, row) {
  if (!row.hidden) {
    row.hidden = true;
    return;
  }
  const byTurn = await busy(() => quotes(state.npcid));
  if (!byTurn) return;
  const field = (label, value) => (value === undefined || value === null || value === '' ? '' : el('div', {}, el('b', {}, `${t(label)}: `), String(value)));
  const turns = m.source_turns ?? [];
  row.firstChild.replaceChildren(
    el('div', { className: 'fields' },
      field('id', m.id), field('created', m.created_at), field('updated', m.updated_at), field('eventTime', m.event_time),
      field('confidence', m.confidence), field('importance', m.importance), field('accessCount', m.access_count),
      field('keywords', (m.keywords ?? []).join(', '))),
    el('h4', {}, t('sourceTurns')),
    turns.length === 0 ? el('p', { className: 'hint' }, t('noSources'))
      : el('ul', { className: 'sources' }, turns.map((turn) => el('li', { 'data-turn': turn },
        el('code', {}, turn), ' ', byTurn.has(turn) ? el('q', {}, byTurn.get(turn)) : el('span', { className: 'hint' }, t('noQuote'))))));
  row.hidden = false;
}

async function patchMemory(m, patch, question) {
  if (!confirm(t(question))) return;
  if (await busy(() => api('PATCH', `/api/memories/${enc(state.npcid)}/${enc(m.id)}`, patch))) await showTab('memories');
}

async function editMemory(m) {
  const text = prompt(t('newText'), m.summary);
  if (text === null || text.trim() === '' || text === m.summary) return;
  await patchMemory(m, { summary: text }, 'confirmEdit');
}

async function deleteMemory(m) {
  if (!confirm(t('confirmDelete'))) return;
  if (await busy(() => api('DELETE', `/api/memories/${enc(state.npcid)}/${enc(m.id)}`))) await showTab('memories');
}

function init() {
  const saved = sessionStorage.getItem(LANG_KEY);
  state.lang = saved ?? (navigator.language?.startsWith('zh') ? 'zh' : 'en');
  applyLang();
  $('#lang').addEventListener('click', () => {
    state.lang = state.lang === 'zh' ? 'en' : 'zh';
    sessionStorage.setItem(LANG_KEY, state.lang);
    applyLang();
    if (state.npcid) showTab(state.tab);
  });
  $('#signout').addEventListener('click', signOut);
  $('#search').addEventListener('input', renderNpcs);
  for (const b of document.querySelectorAll('#tabs button')) b.addEventListener('click', () => showTab(b.dataset.tab));
  $('#login').addEventListener('submit', async (e) => {
    e.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $('#token').value);
    $('#token').value = '';
    const ok = await busy(async () => { await signIn(); return true; });
    if (!ok) status(t('badToken'), true);
  });
  if (sessionStorage.getItem(TOKEN_KEY)) busy(signIn);
  else {
    $('#login').hidden = false;
    document.body.dataset.state = 'ready';
  }
}

init();
