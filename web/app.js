// xqtb query pages: position, play mode, board editor, tables, statistics, help.
// Everything comes from this server's JSON API (formats/api.md); nothing is loaded from elsewhere.
'use strict';

// ---------------------------------------------------------------- text (English / Chinese)

const TEXT = {
  en: {
    'nav.position': 'Position', 'nav.tables': 'Tables', 'nav.editor': 'Editor', 'nav.help': 'Help',
    'pref.notation': 'Notation', 'pref.pieces': 'Pieces', 'pref.han': 'Characters', 'pref.latin': 'Letters',
    'pref.theme': 'Dark mode',
    'side.w': 'Red', 'side.b': 'Black',
    'tomove': '{side} to move',
    'v.win': '{side} to move wins: {plies} to conversion, order {o}',
    'v.loss': '{side} to move loses: conversion in {plies}, order {o}',
    'v.rule.win': '{side} to move wins: within {plies} {loser} has nothing left but {act}, which the Asian rules forbid (order {o})',
    'v.rule.loss': '{side} to move loses: within {plies} it has nothing left but {act}, which the Asian rules forbid (order {o})',
    'v.rule.loss0': '{side} to move loses: it has nothing left but {act}, which the Asian rules forbid (order {o})',
    'act.check': 'perpetual check', 'act.chase': 'a perpetual chase of the {piece} on {sq}',
    'rule.marks': 'Ringed on the board: the pieces that will give that check or chase (orange) and the piece chased (blue).',
    'rep.check': 'The position has repeated: {loser} gave check with every move since it last stood here. Perpetual check loses under the Asian rules: {winner} wins.',
    'rep.chase': 'The position has repeated: {loser} chased the {piece} on {sq} with every move since it last stood here. Perpetual chase loses under the Asian rules: {winner} wins.',
    'rep.mutual': 'The position has repeated, both sides giving check with every move: mutual perpetual check is a draw.',
    'rep.draw': 'The position has repeated, and neither side alone checked or chased with every move: a draw under the Asian rules.',
    'play.over.rule': 'Game over. {text}',
    'v.lossmate': '{side} to move has no move and loses (order {o})',
    'v.draw': '{side} to move: draw',
    'explain': 'Value: plies (half-moves) to the next conversion, a capture or mate, with best play by both sides; odd means the side to move wins, even that it loses. Order: 0 when the result needs no ruling on endless play; above 0 when it rests on the Asian rules against perpetual check and chase, and the value then counts plies to that ruling.',
    'explain.orders': 'Order {o}: this result rests on the Asian rules, which forbid perpetual check and perpetual chase. The distance counts plies until the losing side has nothing left but the forbidden check or chase; every way out leads to a position of lower order, where the rules may decide again. At order 0 a result needs no such ruling.',
    'more': 'More in Help.',
    'plies.one': '1 ply', 'plies.many': '{d} plies',
    'dtm.win': '{side} to move mates in {plies}',
    'dtm.loss': '{side} to move is mated in {plies}',
    'dtm.mated': '{side} to move is checkmated',
    'dtm.stalemated': '{side} to move is stalemated (a loss)',
    'dtm.draw': 'Distance to mate: none (draw)',
    'dtm.perp.win': '{side} to move wins: in {plies} the loser can only check or chase forever (DTM level {k})',
    'dtm.perp.loss': '{side} to move loses: in {plies} it can only check or chase forever (DTM level {k})',
    'dtm.perp0': '{side} to move loses: it can only check or chase forever (DTM level {k})',
    'dtm.levelnote': 'DTM level {k}: the distance counts plies not to mate but to a position where the losing side can only check or chase forever, which the rules forbid: phase {p} of the Asian rules, {where}.',
    'dtm.where.here': 'in this table',
    'dtm.where.one': 'in the table reached after 1 capture',
    'dtm.where.many': 'in the table reached after {j} captures',
    'explain.dtm': 'DTM, distance to mate: plies to checkmate or stalemate (a loss in Xiangqi) with best play under this metric, counted through captures; a DTM level other than () counts to a ruling on perpetual check or chase instead. Win, draw or loss is the same under both metrics.',
    'metric.label': 'Moves ordered and best (*) by',
    'metric.dtc': 'distance to conversion', 'metric.dtm': 'distance to mate',
    'legend.dtm': 'M36: distance to mate of the position after the move, for the side to move there; M2 (0, 1): plies to the ruling of that DTM level · bold: a best move under that metric',
    'check': 'in check',
    'g.win': 'Winning moves', 'g.draw': 'Drawing moves', 'g.loss': 'Losing moves',
    'nomoves': 'No legal move: {side} is {how}.', 'mated': 'checkmated', 'stalemated': 'stalemated (a loss in Xiangqi)',
    'btn.back': '← Back', 'btn.fwd': 'Forward →', 'btn.suggest': 'Suggested move', 'btn.line': 'Play to conversion',
    'btn.mate': 'Play to mate', 'btn.stop': 'Stop', 'btn.flip': 'Flip board', 'btn.play': 'Play mode', 'btn.edit': 'Edit position',
    'btn.lookup': 'Look up answers', 'btn.restart': 'Restart', 'btn.load': 'Load', 'btn.analyse': 'Analyse',
    'btn.clear': 'Clear', 'btn.kings': 'Kings only', 'btn.start': 'Start position',
    'partial.value': '{side} to move: {b}{exact} (partial table)', 'order': 'order {o}',
    'bounds.win': 'a win', 'bounds.draw': 'a draw', 'bounds.loss': 'a loss', 'bounds.at least a draw': 'at least a draw',
    'bounds.at most a draw': 'at most a draw', 'bounds.unknown': 'unknown',
    'partial.note': 'This table was built without {without}: its values are bounds — the worst and the best the missing tables could make them — exact where they meet (Björnsson, Schaeffer and Sturtevant, Partial Information Endgame Databases, 2005). Best moves are marked only where the values are exact.',
    'legend.partial': 'after each move: the bounds for the side to move there, (order-value) where exact · * best (only where exact) · c capture · + check',
    'btn.copy': 'Copy FEN', 'btn.copied': 'Copied', 'btn.side': 'Other side to move', 'btn.pgn': 'Download line (PGN)',
    'fen': 'FEN', 'qstring': 'Classic position string',
    'legend': '(order-value) of the position after the move, for the side to move there · * best · c capture · + check · ~ chases a piece (Asian rules)',
    'chases': 'chases the piece on {points}',
    'line.end.conversion': 'Conversion reached.', 'line.end.mate': 'Mate.', 'line.end.stalemate': 'Stalemate: a loss in Xiangqi.',
    'line.end.draw': 'A draw: best play converts nothing.', 'line.end.limit': 'Stopped at the length limit.',
    'line.end.perpetual': 'The side to move can only check or chase forever, which the rules forbid: it loses.',
    'line.end.nodtm': 'No distance-to-mate table for this position: the line stops here.',
    'line.end.repetition': 'The position has repeated: the rules decide.',
    'play.title': 'Play against the tables', 'play.you': 'You play {side}.', 'play.yourmove': 'Your move.',
    'play.thinking': 'The tables answer…', 'play.over.lost': 'You lose: {how}.', 'play.over.won': 'You win: {how}.',
    'play.choose': 'Play as', 'play.hint': 'Values are hidden. Drag or click a piece to move; the tables answer with a best move.',
    'play.converted': 'A piece was captured: the game goes on in a smaller table.',
    'edit.title': 'Board editor', 'edit.hint': 'Pick a piece (or the eraser) and click points on the board. Right-click removes.',
    'edit.side': 'Side to move', 'edit.erase': 'Eraser', 'edit.ok': 'Legal position.',
    'edit.notable': 'Legal position, but {msg}',
    'tables.title': 'Tables', 'tables.none': 'No tables in this directory yet: build some with `xqtb build KNKA --dir <DIR>`.',
    'tables.material': 'Material', 'tables.positions': 'Positions', 'tables.redwin': 'Red win %', 'tables.blackdraw': 'Black draw %',
    'tables.longest': 'Longest win (order: plies)', 'tables.size': 'File size', 'tables.unavailable': 'Unavailable tables',
    'tables.kind.rook': 'Rook endings', 'tables.kind.horse': 'Horse endings', 'tables.kind.cannon': 'Cannon endings',
    'tables.kind.pawn': 'Pawn endings', 'tables.kind.misc': 'Other endings',
    'tables.more': '{n} more orders', 'tables.longest.title': 'order {o}: a win in {d} plies',
    'tables.note': 'Grouped as the classic query system groups them, by Red\'s attacking pieces (Red is listed first). Click a heading to sort. Longest win: order: plies, for order 0 and the highest order.',
    'stats.title': 'Statistics of {m}', 'stats.side': 'Side to move', 'stats.legal': 'Legal', 'stats.win': 'Win', 'stats.draw': 'Draw', 'stats.loss': 'Loss',
    'stats.longest': 'Longest win per order', 'stats.order': 'Order', 'stats.plies': 'Plies', 'stats.example': 'Example position',
    'stats.hist': 'Distance histogram, {side} to move, order {o}', 'stats.histnote': 'Positions per distance to conversion: odd distances are wins (green), even are losses (red).',
    'stats.pawns': 'By the most advanced pawn ({side} to move)', 'stats.pawnnote': 'Ranks counted from the pawn owner\'s back rank: 3–4 not yet across the river, 5–7 high pawn (高兵), 8 low pawn (低兵), 9 bottom pawn (底兵).',
    'stats.redpawn': 'Red pawn rank', 'stats.blackpawn': 'Black pawn rank', 'stats.nopawn': 'none',
    'stats.pawn.home': 'not across the river', 'stats.pawn.high': 'high pawn', 'stats.pawn.low': 'low pawn', 'stats.pawn.bottom': 'bottom pawn',
    'partial.title': 'Partial table of {m}', 'partial.about': 'Built without {without}: each position has bounds on its value; the share resolved counts an exact outcome as 1, at least or at most a draw as ½, unknown as 0 (Björnsson, Schaeffer and Sturtevant, Partial Information Endgame Databases, 2005).',
    'partial.positions': 'Positions', 'partial.exact': 'Exact', 'partial.onesided': 'One-sided', 'partial.unknown': 'Unknown', 'partial.resolved': 'Resolved', 'partial.all': 'All',
    'partial.checked': 'Checked against the complete table: {n} positions, {out} outside their bounds, {diff} exact values that differ.',
    'stats.orders': 'Orders', 'stats.longestplies': 'Longest win (plies)', 'stats.hists': 'Distances',
    'stats.ordersnote': 'Both sides to move together. Orders above 0 are positions whose result rests on the Asian rules against perpetual check and chase.',
    'stats.file': 'File {f}, {b}, rule set {r}.', 'stats.verdict.redwin': 'Red wins this ending as a rule (red win ≥ 98%).',
    'stats.verdict.draw': 'This ending is a draw as a rule (black draw ≥ 98%).', 'stats.verdict.open': 'Neither a rule win nor a rule draw: the result depends on the position.',
    'loading': 'Loading…', 'error': 'Error', 'notfound': 'Page not found.',
    'piece.K': 'king', 'piece.A': 'advisor', 'piece.B': 'elephant', 'piece.R': 'rook', 'piece.N': 'horse', 'piece.C': 'cannon', 'piece.P': 'pawn',
    'rule.kings': '{side} needs exactly one king.', 'rule.point': '{side} {piece} on {sq}: it can never stand there.',
    'rule.count': '{side} has more than {n} {piece}s.', 'rule.server': '{msg}',
    'rule.check': '{side}, the side not to move, is in check: the side to move could take the king. (Two kings facing each other on an open file count as check.)',
    'keys': 'Keys: ← → back/forward, space suggested move, f flip.',
  },
  zh: {
    'nav.position': '局面', 'nav.tables': '殘局庫', 'nav.editor': '擺局', 'nav.help': '說明',
    'pref.notation': '記譜', 'pref.pieces': '棋子', 'pref.han': '漢字', 'pref.latin': '字母',
    'pref.theme': '深色模式',
    'side.w': '紅方', 'side.b': '黑方',
    'tomove': '輪{side}走',
    'v.win': '輪{side}走，勝：距轉換 {plies}，階 {o}',
    'v.loss': '輪{side}走，負：{plies}後轉換，階 {o}',
    'v.rule.win': '輪{side}走，勝：{plies}內{loser}只剩{act}，依亞洲規則判負（階 {o}）',
    'v.rule.loss': '輪{side}走，負：{plies}內只剩{act}，依亞洲規則判負（階 {o}）',
    'v.rule.loss0': '輪{side}走，負：只剩{act}，依亞洲規則判負（階 {o}）',
    'act.check': '長將', 'act.chase': '長捉 {sq} 的{piece}',
    'rule.marks': '棋盤上圈出：將要長將或長捉的棋子（橙色）與被捉的棋子（藍色）。',
    'rep.check': '局面重複：自上次出現此局面以來，{loser}每著都將軍。依亞洲規則長將判負：{winner}勝。',
    'rep.chase': '局面重複：自上次出現此局面以來，{loser}每著都捉 {sq} 的{piece}。依亞洲規則長捉判負：{winner}勝。',
    'rep.mutual': '局面重複，雙方每著都將軍：雙方長將，判和。',
    'rep.draw': '局面重複，沒有一方單獨每著將軍或捉子：依亞洲規則判和。',
    'play.over.rule': '對局結束。{text}',
    'v.lossmate': '輪{side}走，無著可走，負（階 {o}）',
    'v.draw': '輪{side}走：和局',
    'explain': 'Value（值）：雙方都走最佳著法時，到下一次轉換（吃子或將死）的步數（半回合）；奇數為走子方勝，偶數為走子方負。Order（階）：結果不需長將、長捉裁決時為 0；大於 0 時，結果取決於亞洲規則禁止長將、長捉，值則算到該裁決的步數。',
    'explain.orders': '階 {o}：此結果取決於亞洲規則禁止長將與長捉。步數算到負方只剩被禁止的長將或長捉為止；負方的每一種變著都進入較低階的局面，在那裡規則可能再次裁決。階 0 的結果不需這種裁決。',
    'more': '詳見說明。',
    'plies.one': '1 步（半回合）', 'plies.many': '{d} 步（半回合）',
    'dtm.win': '輪{side}走，{plies}將死對方',
    'dtm.loss': '輪{side}走，{plies}後被將死',
    'dtm.mated': '輪{side}走，已被將死',
    'dtm.stalemated': '輪{side}走，已被困斃（負）',
    'dtm.draw': '距將死步數：無（和局）',
    'dtm.perp.win': '輪{side}走，勝：{plies}後對方只能長將或長捉（DTM 層級 {k}）',
    'dtm.perp.loss': '輪{side}走，負：{plies}後只能長將或長捉（DTM 層級 {k}）',
    'dtm.perp0': '輪{side}走，負：只能長將或長捉（DTM 層級 {k}）',
    'dtm.levelnote': 'DTM 層級 {k}：步數不是算到將死，而是算到負方只能長將或長捉（規則禁止）的局面：亞洲規則第 {p} 階，{where}。',
    'dtm.where.here': '在本殘局庫',
    'dtm.where.one': '在吃一子後到達的殘局庫',
    'dtm.where.many': '在吃 {j} 子後到達的殘局庫',
    'explain.dtm': 'DTM（距將死步數）：依此標準雙方都走最佳著法時，到將死或困斃（象棋中為負）的步數，吃子不中斷計數；DTM 層級不是 () 時，步數改為算到長將、長捉的裁決。兩種標準的勝、和、負相同。',
    'metric.label': '著法排序與最佳（*）依',
    'metric.dtc': '距轉換步數', 'metric.dtm': '距將死步數',
    'legend.dtm': 'M36：走後局面對該走子方的距將死步數；M2 (0, 1)：到該 DTM 層級裁決的步數 · 粗體：該標準下的最佳著法',
    'check': '被將軍',
    'g.win': '勝著', 'g.draw': '和著', 'g.loss': '負著',
    'nomoves': '無合法著法：{side}{how}。', 'mated': '被將死', 'stalemated': '被困斃（象棋中為負）',
    'btn.back': '← 上一步', 'btn.fwd': '下一步 →', 'btn.suggest': '電腦代走', 'btn.line': '走到轉換',
    'btn.mate': '走到將死', 'btn.stop': '停止', 'btn.flip': '翻轉棋盤', 'btn.play': '練習攻防', 'btn.edit': '擺局',
    'btn.lookup': '查閱解答', 'btn.restart': '重來', 'btn.load': '載入', 'btn.analyse': '查詢',
    'btn.clear': '清空', 'btn.kings': '只留將帥', 'btn.start': '初始局面',
    'partial.value': '輪{side}走：{b}{exact}（部分殘局庫）', 'order': '階 {o}',
    'bounds.win': '勝', 'bounds.draw': '和', 'bounds.loss': '負', 'bounds.at least a draw': '至少和局',
    'bounds.at most a draw': '至多和局', 'bounds.unknown': '未知',
    'partial.note': '此殘局庫建造時缺少 {without}：值為上下界（缺少的殘局庫可能造成的最差與最佳結果），兩者相同時為確定值。僅在值確定時標出最佳著法。',
    'legend.partial': '每著之後：走後局面對該走子方的上下界，確定時附（階-值） · * 最佳（僅確定時） · c 吃子 · + 將軍',
    'btn.copy': '複製 FEN', 'btn.copied': '已複製', 'btn.side': '換對方走', 'btn.pgn': '下載棋譜（PGN）',
    'fen': 'FEN', 'qstring': '經典局面字串',
    'legend': '（階-值）為走後局面對該走子方的值 · * 最佳 · c 吃子 · + 將軍 · ~ 捉子（亞洲規則）',
    'chases': '捉 {points} 之子',
    'line.end.conversion': '已到轉換。', 'line.end.mate': '將死。', 'line.end.stalemate': '困斃：象棋中為負。',
    'line.end.draw': '和局：最佳著法不轉換。', 'line.end.limit': '已到長度上限。',
    'line.end.perpetual': '走子方只能長將或長捉，規則禁止：判負。',
    'line.end.nodtm': '此局面沒有距將死殘局庫：停止。',
    'line.end.repetition': '局面重複：依規則裁決。',
    'play.title': '與殘局庫對弈', 'play.you': '你執{side}。', 'play.yourmove': '請走棋。',
    'play.thinking': '殘局庫應著…', 'play.over.lost': '你輸了：{how}。', 'play.over.won': '你贏了：{how}。',
    'play.choose': '執', 'play.hint': '不顯示值。拖動或點擊棋子走棋；殘局庫以最佳著法應對。',
    'play.converted': '已吃子：棋局在較小的殘局庫中繼續。',
    'edit.title': '擺局', 'edit.hint': '選擇棋子（或橡皮擦）後點擊棋盤上的點。右鍵移除。',
    'edit.side': '走子方', 'edit.erase': '橡皮擦', 'edit.ok': '合法局面。',
    'edit.notable': '合法局面，但{msg}',
    'tables.title': '殘局庫', 'tables.none': '此目錄中還沒有殘局庫：用 `xqtb build KNKA --dir <DIR>` 建造。',
    'tables.material': '子力', 'tables.positions': '局面數', 'tables.redwin': '紅勝率 %', 'tables.blackdraw': '黑和率 %',
    'tables.longest': '最長著手（階：步）', 'tables.size': '檔案大小', 'tables.unavailable': '無法使用的殘局庫',
    'tables.kind.rook': '車類殘局', 'tables.kind.horse': '馬類殘局', 'tables.kind.cannon': '炮類殘局',
    'tables.kind.pawn': '兵類殘局', 'tables.kind.misc': '其他殘局',
    'tables.more': '另有 {n} 階', 'tables.longest.title': '階 {o}：{d} 步（半回合）勝',
    'tables.note': '依經典查詢系統的分類，以紅方（列在前面）的攻擊子分組。點擊欄名排序。最長著手：階：步，列出階 0 與最高階。',
    'stats.title': '{m} 統計', 'stats.side': '走子方', 'stats.legal': '合法', 'stats.win': '勝', 'stats.draw': '和', 'stats.loss': '負',
    'stats.longest': '各階最長著手', 'stats.order': '階', 'stats.plies': '步', 'stats.example': '例局',
    'stats.hist': '步數分佈，輪{side}走，階 {o}', 'stats.histnote': '各步數（到轉換）的局面數：奇數為勝（綠），偶數為負（紅）。',
    'stats.pawns': '按最前兵卒分（輪{side}走）', 'stats.pawnnote': '自兵卒所屬方的底線算起：3–4 未過河，5–7 高兵，8 低兵，9 底兵。',
    'stats.redpawn': '紅兵所在線', 'stats.blackpawn': '黑卒所在線', 'stats.nopawn': '無',
    'stats.pawn.home': '未過河', 'stats.pawn.high': '高兵', 'stats.pawn.low': '低兵', 'stats.pawn.bottom': '底兵',
    'partial.title': '{m} 部分殘局庫', 'partial.about': '建造時缺少 {without}：每個局面的值為上下界；已解比例：確定為 1，至少或至多和局為 ½，未知為 0（Björnsson、Schaeffer、Sturtevant，Partial Information Endgame Databases，2005）。',
    'partial.positions': '局面', 'partial.exact': '確定', 'partial.onesided': '單側', 'partial.unknown': '未知', 'partial.resolved': '已解', 'partial.all': '全部',
    'partial.checked': '與完整殘局庫比對：{n} 個局面，{out} 個超出上下界，{diff} 個確定值不同。',
    'stats.orders': '各階', 'stats.longestplies': '最長著手（步）', 'stats.hists': '步數分佈',
    'stats.ordersnote': '雙方走子合計。階大於 0 的局面，其結果取決於亞洲規則禁止長將、長捉。',
    'stats.file': '檔案 {f}，{b}，規則 {r}。', 'stats.verdict.redwin': '此殘局紅方例勝（紅勝率 ≥ 98%）。',
    'stats.verdict.draw': '此殘局例和（黑和率 ≥ 98%）。', 'stats.verdict.open': '非例勝亦非例和：巧勝或巧和，視局面而定。',
    'loading': '載入中…', 'error': '錯誤', 'notfound': '找不到頁面。',
    'piece.K': '將帥', 'piece.A': '士仕', 'piece.B': '象相', 'piece.R': '車', 'piece.N': '馬', 'piece.C': '炮', 'piece.P': '兵卒',
    'rule.kings': '{side}必須恰有一個將帥。', 'rule.point': '{side}{piece}在 {sq}：這個點它永遠到不了。',
    'rule.count': '{side}的{piece}超過 {n} 個。', 'rule.server': '{msg}',
    'rule.check': '{side}不是走子方，卻正被將軍：走子方可以吃將。（兩將在同一縱線上直接相對也算將軍。）',
    'keys': '按鍵：← → 上一步／下一步，空白鍵 電腦代走，f 翻轉棋盤。',
  },
};

/** Storage that never throws (private windows and disabled storage just forget). */
function store(kind) {
  let st = null;
  try { st = window[kind]; st.getItem('x'); } catch (e) { st = null; }
  return {
    get: (k) => { try { return st ? st.getItem(k) : null; } catch (e) { return null; } },
    set: (k, v) => { try { if (st) st.setItem(k, v); } catch (e) { /* full or disabled */ } },
  };
}
const local = store('localStorage'), session = store('sessionStorage');

const prefs = {
  lang: local.get('xqtb.lang') || ((navigator.language || '').startsWith('zh') ? 'zh' : 'en'),
  notation: local.get('xqtb.notation') || 'zh',
  pieces: local.get('xqtb.pieces') || 'han',
  // Which metric orders the moves and picks the best ones where DTM tables exist: 'dtc' or 'dtm'.
  metric: local.get('xqtb.metric') === 'dtm' ? 'dtm' : 'dtc',
  flipped: false,
};

function t(key, vars) {
  let s = (TEXT[prefs.lang] && TEXT[prefs.lang][key]) || TEXT.en[key] || key;
  for (const k in vars || {}) s = s.split('{' + k + '}').join(String(vars[k]));
  return s;
}

// ---------------------------------------------------------------- small helpers

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'class') e.className = v;
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of kids.flat()) if (c !== null && c !== undefined && c !== false) e.append(c instanceof Node ? c : String(c));
  return e;
}
const SVGNS = 'http://www.w3.org/2000/svg';
function sv(tag, attrs, ...kids) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) if (v !== null && v !== undefined) e.setAttribute(k, v);
  for (const c of kids.flat()) if (c !== null && c !== undefined) e.append(c instanceof Node ? c : String(c));
  return e;
}

async function api(path) {
  const r = await fetch(path, { headers: { accept: 'application/json' } });
  let body = null;
  try { body = await r.json(); } catch (e) { body = { error: 'HTTP ' + r.status }; }
  return { ok: r.ok, status: r.status, body };
}

/** URL form of a FEN: spaces as `_`, only the board and side fields. */
function fenParam(fen) {
  return fen.trim().split(/\s+/).slice(0, 2).join('_');
}
/** fenParam for a query string: `/` and `:` stay readable, anything unusual is escaped. */
function fenArg(fen) {
  return fenParam(fen).replace(/[^A-Za-z0-9/_:-]/g, (c) => encodeURIComponent(c));
}
function fmtBytes(b) {
  if (b < 1024) return b + ' B';
  if (b < 1 << 20) return (b / 1024).toFixed(1) + ' KiB';
  if (b < 1 << 30) return (b / (1 << 20)).toFixed(1) + ' MiB';
  return (b / (1 << 30)).toFixed(2) + ' GiB';
}
function fmtInt(n) { return Number(n).toLocaleString('en-US'); }
/** A count in at most five characters: 980, 44.9k, 12.98M. */
function fmtCompact(n) {
  if (n < 1e4) return fmtInt(n);
  if (n < 1e6) return (n / 1e3).toFixed(1) + 'k';
  if (n < 1e9) return (n / 1e6).toFixed(2) + 'M';
  return (n / 1e9).toFixed(2) + 'G';
}
function pct(x, n) { return n ? (100 * x / n).toFixed(2) : '0.00'; }

// ---------------------------------------------------------------- positions

const LETTERS = 'KABRNCP';
const HAN = { K: ['帥', '將'], A: ['仕', '士'], B: ['相', '象'], R: ['俥', '車'], N: ['傌', '馬'], C: ['炮', '砲'], P: ['兵', '卒'] };
const LIMIT = { K: 1, A: 2, B: 2, R: 2, N: 2, C: 2, P: 5 };

/** A position: board[rank][file] = 'R' (Red rook), 'r' (Black rook) or ''; turn 'w' or 'b'. */
function emptyPosition() {
  return { board: Array.from({ length: 10 }, () => Array(9).fill('')), turn: 'w' };
}

function normLetter(c) {
  const u = c.toUpperCase();
  const m = { E: 'B', H: 'N' }[u] || u;
  return LETTERS.includes(m) ? (c === u ? m : m.toLowerCase()) : null;
}

/** Parses a FEN or the classic position string; returns {pos, blackView} or throws. */
function parsePosition(text) {
  text = text.trim().replace(/_/g, ' ');
  const pos = emptyPosition();
  if (text.includes('/')) {
    const [board, side] = text.split(/\s+/);
    const ranks = board.split('/');
    if (ranks.length !== 10) throw new Error('FEN has ' + ranks.length + ' ranks, expected 10');
    ranks.forEach((row, i) => {
      let f = 0;
      for (const c of row) {
        if (/[1-9]/.test(c)) f += Number(c);
        else {
          const p = normLetter(c);
          if (!p) throw new Error('unknown piece letter ' + JSON.stringify(c));
          if (f > 8) throw new Error('rank ' + (9 - i) + ' is too long');
          pos.board[9 - i][f++] = p;
        }
      }
      if (f !== 9) throw new Error('rank ' + (9 - i) + ' describes ' + f + ' points, expected 9');
    });
    if (side && !['w', 'r', 'b'].includes(side)) throw new Error('side to move must be w (Red) or b (Black)');
    pos.turn = side === 'b' ? 'b' : 'w';
    return { pos, blackView: false };
  }
  let s = text, blackView = false;
  if (s.endsWith(':')) { blackView = true; s = s.slice(0, -1); }
  const CL = { k: 'K', b: 'A', e: 'B', r: 'R', n: 'N', c: 'C', p: 'P' };
  let point = 0, i = 0;
  for (; i < s.length && point < 90; i++) {
    const c = s[i];
    if (/[1-9]/.test(c)) {
      const d = Number(c);
      if (d > 9 - point % 9) throw new Error('a row describes more than 9 points');
      point += d;
    } else {
      const r = CL[c.toLowerCase()];
      if (!r) throw new Error('unknown piece letter ' + JSON.stringify(c));
      const row = Math.floor(point / 9), col = point % 9;
      pos.board[9 - row][col] = c === c.toUpperCase() ? r.toLowerCase() : r;
      point++;
    }
  }
  if (point !== 90) throw new Error('position string has ' + point + ' points, expected 90');
  const rest = s.slice(i);
  if (rest === '0') pos.turn = 'b';
  else if (rest !== '') throw new Error('unexpected ' + JSON.stringify(rest) + ' after the board');
  return { pos, blackView };
}

function toFen(pos) {
  const rows = [];
  for (let r = 9; r >= 0; r--) {
    let s = '', n = 0;
    for (let f = 0; f < 9; f++) {
      const p = pos.board[r][f];
      if (!p) n++;
      else { if (n) s += n; n = 0; s += p; }
    }
    if (n) s += n;
    rows.push(s);
  }
  return rows.join('/') + ' ' + pos.turn;
}

/** The classic query system's position string (Black in capitals, trailing 0 for Black to move). */
function toQstring(pos) {
  const CL = { K: 'k', A: 'b', B: 'e', R: 'r', N: 'n', C: 'c', P: 'p' };
  let s = '';
  for (let r = 9; r >= 0; r--) {
    let n = 0;
    for (let f = 0; f < 9; f++) {
      const p = pos.board[r][f];
      if (!p) { n++; continue; }
      if (n) s += n;
      n = 0;
      const c = CL[p.toUpperCase()];
      s += isRed(p) ? c : c.toUpperCase();
    }
    if (n) s += n;
  }
  return s + (pos.turn === 'b' ? '0' : '');
}

const sqName = (f, r) => 'abcdefghi'[f] + r;
const parseSq = (s) => ({ f: s.charCodeAt(0) - 97, r: Number(s[1]) });
const isRed = (p) => p && p === p.toUpperCase();

/** Can this piece ever stand on this point? (palace, elephant points, pawn points) */
function canStand(p, f, r) {
  const red = isRed(p), k = p.toUpperCase();
  const rr = red ? r : 9 - r; // rank from its own side
  const ff = red ? f : 8 - f;
  switch (k) {
    case 'K': return ff >= 3 && ff <= 5 && rr <= 2;
    case 'A': return [[3, 0], [5, 0], [4, 1], [3, 2], [5, 2]].some(([a, b]) => a === ff && b === rr);
    case 'B': return [[2, 0], [6, 0], [0, 2], [4, 2], [8, 2], [2, 4], [6, 4]].some(([a, b]) => a === ff && b === rr);
    case 'P': return rr >= 5 || ((rr === 3 || rr === 4) && ff % 2 === 0);
    default: return true;
  }
}

/** The first placement rule a setup breaks, in words; null if none (check is left to the server). */
function setupProblem(pos) {
  const count = {};
  for (let r = 0; r < 10; r++) for (let f = 0; f < 9; f++) {
    const p = pos.board[r][f];
    if (!p) continue;
    count[p] = (count[p] || 0) + 1;
    if (!canStand(p, f, r)) return t('rule.point', { side: t('side.' + (isRed(p) ? 'w' : 'b')), piece: t('piece.' + p.toUpperCase()), sq: sqName(f, r) });
  }
  for (const side of ['w', 'b']) {
    const k = side === 'w' ? 'K' : 'k';
    if ((count[k] || 0) !== 1) return t('rule.kings', { side: t('side.' + side) });
    for (const L of 'ABRNCP') {
      const key = side === 'w' ? L : L.toLowerCase();
      if ((count[key] || 0) > LIMIT[L]) return t('rule.count', { side: t('side.' + side), n: LIMIT[L], piece: t('piece.' + L) });
    }
  }
  return null;
}

// ---------------------------------------------------------------- the board

const S = 60, M = 54; // point spacing, margin (room for the file numbers outside the pieces)
const W = 8 * S + 2 * M, H = 9 * S + 2 * M;

/** Draws a board; returns an object to update pieces, highlights and arrows. */
function makeBoard(opts) {
  const svg = sv('svg', { class: 'board', viewBox: `0 0 ${W} ${H}`, role: 'img', id: 'board' });
  // The orientation is fixed when the board is drawn: pieces, file numbers and river agree.
  const flipped = prefs.flipped;
  const xy = (f, r) => flipped ? [M + (8 - f) * S, M + r * S] : [M + f * S, M + (9 - r) * S];
  svg.append(sv('rect', { class: 'bg', x: 0, y: 0, width: W, height: H, rx: 10 }));
  const grid = sv('g', {});
  grid.append(sv('rect', { class: 'frame', x: M - 6, y: M - 6, width: 8 * S + 12, height: 9 * S + 12 }));
  for (let i = 0; i < 10; i++) grid.append(sv('line', { class: 'ln', x1: M, y1: M + i * S, x2: M + 8 * S, y2: M + i * S }));
  for (let i = 0; i < 9; i++) {
    if (i === 0 || i === 8) grid.append(sv('line', { class: 'ln', x1: M + i * S, y1: M, x2: M + i * S, y2: M + 9 * S }));
    else {
      grid.append(sv('line', { class: 'ln', x1: M + i * S, y1: M, x2: M + i * S, y2: M + 4 * S }));
      grid.append(sv('line', { class: 'ln', x1: M + i * S, y1: M + 5 * S, x2: M + i * S, y2: M + 9 * S }));
    }
  }
  for (const y0 of [0, 7]) {
    grid.append(sv('line', { class: 'ln', x1: M + 3 * S, y1: M + y0 * S, x2: M + 5 * S, y2: M + (y0 + 2) * S }));
    grid.append(sv('line', { class: 'ln', x1: M + 5 * S, y1: M + y0 * S, x2: M + 3 * S, y2: M + (y0 + 2) * S }));
  }
  // Cannon and pawn points.
  const marks = [[1, 2], [7, 2], [0, 3], [2, 3], [4, 3], [6, 3], [8, 3], [1, 7], [7, 7], [0, 6], [2, 6], [4, 6], [6, 6], [8, 6]];
  for (const [f, r] of marks) {
    const x = M + f * S, y = M + (9 - r) * S, d = 5, l = 10;
    for (const sx of [-1, 1]) for (const sy of [-1, 1]) {
      if ((f === 0 && sx < 0) || (f === 8 && sx > 0)) continue;
      grid.append(sv('polyline', { class: 'ln', points: `${x + sx * (d + l)},${y + sy * d} ${x + sx * d},${y + sy * d} ${x + sx * d},${y + sy * (d + l)}` }));
    }
  }
  const ry = M + 4.5 * S;
  const [leftText, rightText] = flipped ? ['漢界', '楚河'] : ['楚河', '漢界'];
  grid.append(sv('text', { class: 'river', x: M + 2 * S, y: ry, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, leftText));
  grid.append(sv('text', { class: 'river', x: M + 6 * S, y: ry, 'text-anchor': 'middle', 'dominant-baseline': 'central' }, rightText));
  // File numbers: each side counts from its own right.
  const RED = '九八七六五四三二一', BLK = '123456789';
  for (let f = 0; f < 9; f++) {
    const [x] = xy(f, 0);
    const bottomRed = !flipped;
    grid.append(sv('text', { class: 'coord', x, y: H - 8, 'text-anchor': 'middle' }, bottomRed ? RED[f] : BLK[f]));
    grid.append(sv('text', { class: 'coord', x, y: 18, 'text-anchor': 'middle' }, bottomRed ? BLK[f] : RED[f]));
  }
  svg.append(grid);
  const marksLayer = sv('g', {}), piecesLayer = sv('g', {}), arrowLayer = sv('g', {}), hitLayer = sv('g', {});
  svg.append(marksLayer, piecesLayer, arrowLayer, hitLayer);
  svg.append(sv('defs', {}, sv('marker', { id: 'ah', viewBox: '0 0 10 10', refX: 5, refY: 5, markerWidth: 3.2, markerHeight: 3.2, orient: 'auto-start-reverse' },
    sv('path', { class: 'arrowhead', d: 'M0,0 L10,5 L0,10 z' }))));
  svg.dataset.flipped = flipped ? 'true' : 'false';

  const board = { svg, xy, pos: null, flipped };
  board.setPosition = (pos, last) => {
    board.pos = pos;
    piecesLayer.textContent = '';
    marksLayer.textContent = '';
    arrowLayer.textContent = '';
    if (last) for (const s of [last.slice(0, 2), last.slice(2, 4)]) {
      const { f, r } = parseSq(s);
      const [x, y] = xy(f, r);
      marksLayer.append(sv('rect', { class: 'last', x: x - 28, y: y - 28, width: 56, height: 56, rx: 8 }));
    }
    for (let r = 0; r < 10; r++) for (let f = 0; f < 9; f++) {
      const p = pos.board[r][f];
      if (!p) continue;
      const [x, y] = xy(f, r);
      const red = isRed(p);
      const latin = prefs.pieces === 'latin';
      const label = latin ? ({ B: 'E', N: 'H' }[p.toUpperCase()] || p.toUpperCase()) : HAN[p.toUpperCase()][red ? 0 : 1];
      const g = sv('g', { class: `piece ${red ? 'red' : 'black'}${latin ? ' latin' : ''}`, transform: `translate(${x},${y})`, 'data-sq': sqName(f, r) },
        sv('circle', { class: 'disc', r: 26 }), sv('circle', { class: 'ring', r: 21 }), sv('text', { x: 0, y: 1 }, label));
      piecesLayer.append(g);
    }
  };
  board.mark = (squares, cls) => {
    for (const s of squares) {
      const { f, r } = parseSq(s);
      const [x, y] = xy(f, r);
      if (cls === 'dest') marksLayer.append(sv('circle', { class: 'dest', cx: x, cy: y, r: 9, 'data-mark': cls }));
      else marksLayer.append(sv('rect', { class: cls, x: x - 28, y: y - 28, width: 56, height: 56, rx: 8, 'data-mark': cls }));
    }
  };
  board.unmark = () => marksLayer.querySelectorAll('[data-mark]').forEach((e) => e.remove());
  /** Rings the pieces a ruling on endless play names: those checking or chasing (`by`) and
   *  the one chased; they stay when a piece is selected. */
  board.markRule = (by, chased) => {
    marksLayer.querySelectorAll('[data-rule]').forEach((e) => e.remove());
    const ring = (s, cls) => {
      const { f, r } = parseSq(s);
      const [x, y] = xy(f, r);
      marksLayer.append(sv('circle', { class: cls, cx: x, cy: y, r: 31, 'data-rule': cls, 'data-sq': s }));
    };
    for (const s of by || []) ring(s, 'rule-by');
    if (chased) ring(chased, 'rule-chased');
  };
  board.arrow = (mv) => {
    arrowLayer.textContent = '';
    if (!mv) return;
    const a = parseSq(mv.slice(0, 2)), b = parseSq(mv.slice(2, 4));
    const [x1, y1] = xy(a.f, a.r), [x2, y2] = xy(b.f, b.r);
    const len = Math.hypot(x2 - x1, y2 - y1), k = (len - 18) / len;
    arrowLayer.append(sv('line', { class: 'arrow', x1, y1, x2: x1 + (x2 - x1) * k, y2: y1 + (y2 - y1) * k, 'marker-end': 'url(#ah)' }));
  };
  /** Board point under a pointer event, or null. */
  board.pointAt = (ev) => {
    const pt = svg.createSVGPoint();
    pt.x = ev.clientX; pt.y = ev.clientY;
    const p = pt.matrixTransform(svg.getScreenCTM().inverse());
    let f = Math.round((p.x - M) / S), rr = Math.round((p.y - M) / S);
    if (f < 0 || f > 8 || rr < 0 || rr > 9) return null;
    if (Math.hypot(p.x - (M + f * S), p.y - (M + rr * S)) > 30) return null;
    return flipped ? { f: 8 - f, r: rr } : { f, r: 9 - rr };
  };
  /** Lets the user play `moves` (UCCI list) by click-click or drag; calls onMove(ucci). */
  board.interactive = (moves, onMove) => {
    const froms = new Set(moves.map((m) => m.slice(0, 2)));
    piecesLayer.querySelectorAll('.piece').forEach((g) => { if (froms.has(g.dataset.sq)) g.classList.add('movable'); });
    let selected = null, drag = null;
    const select = (sq) => {
      board.unmark();
      selected = sq;
      if (!sq) return;
      board.mark([sq], 'sel');
      board.mark(moves.filter((m) => m.startsWith(sq)).map((m) => m.slice(2, 4)), 'dest');
    };
    const tryMove = (from, to) => {
      const mv = from + to;
      if (moves.includes(mv)) { select(null); onMove(mv); return true; }
      return false;
    };
    svg.onpointerdown = (ev) => {
      const p = board.pointAt(ev);
      if (!p) return;
      const sq = sqName(p.f, p.r);
      if (selected && tryMove(selected, sq)) return;
      if (froms.has(sq)) {
        select(sq);
        const g = piecesLayer.querySelector(`[data-sq="${sq}"]`);
        drag = { sq, g, moved: false, id: ev.pointerId };
        try { svg.setPointerCapture(ev.pointerId); } catch (e) { /* ignore */ }
        ev.preventDefault();
      } else select(null);
    };
    svg.onpointermove = (ev) => {
      if (!drag || ev.pointerId !== drag.id) return;
      const pt = svg.createSVGPoint();
      pt.x = ev.clientX; pt.y = ev.clientY;
      const p = pt.matrixTransform(svg.getScreenCTM().inverse());
      drag.moved = true;
      drag.g.classList.add('dragging');
      drag.g.setAttribute('transform', `translate(${p.x},${p.y})`);
      piecesLayer.append(drag.g);
    };
    svg.onpointerup = (ev) => {
      if (!drag || ev.pointerId !== drag.id) return;
      const d = drag;
      drag = null;
      if (!d.moved) return;
      const p = board.pointAt(ev);
      if (p && tryMove(d.sq, sqName(p.f, p.r))) return;
      const { f, r } = parseSq(d.sq);
      const [x, y] = xy(f, r);
      d.g.classList.remove('dragging');
      d.g.setAttribute('transform', `translate(${x},${y})`);
    };
  };
  return board;
}

// ---------------------------------------------------------------- routing and history

let view = null; // the current page's cleanup/keys
const app = () => document.getElementById('app');

/** Shows `url`; `state` rides along in the history entry (the game a position belongs to). */
function go(url, push = true, state = null) {
  if (push) history.pushState(state, '', url);
  route();
}
window.addEventListener('popstate', () => { stopAutoplay(); route(); });
document.addEventListener('click', (ev) => {
  const a = ev.target.closest('a[data-nav], a[href^="/"]');
  if (!a || ev.defaultPrevented || ev.button !== 0 || ev.metaKey || ev.ctrlKey || ev.shiftKey) return;
  const href = a.getAttribute('href');
  if (!href || href.startsWith('/api/') || a.target) return;
  ev.preventDefault();
  go(href);
});
document.addEventListener('keydown', (ev) => {
  const tgt = ev.target instanceof Element ? ev.target : null;
  if ((tgt && tgt.closest('input, textarea, select')) || ev.altKey || ev.ctrlKey || ev.metaKey) return;
  if ((ev.key === ' ' || ev.key === 'Enter') && tgt && tgt.closest('button, a')) return;
  if (view && view.key && view.key(ev)) ev.preventDefault();
});

function route() {
  if (view && view.leave) view.leave();
  view = null;
  const u = new URL(location.href);
  const path = u.pathname;
  document.querySelectorAll('header nav a').forEach((a) => a.classList.toggle('active', a.getAttribute('href') === path));
  // The classic query system's addresses: the position string is the whole query
  // (`/?4K44B49994n495k399`, `/endgame.cgi?…`, `/play.cgi?…`).
  const raw = u.search.slice(1);
  const classic = raw && !raw.includes('=') ? decodeURIComponent(raw) : null;
  const fen = u.searchParams.get('fen') || classic;
  if (path === '/' || path === '/endgame.cgi') view = positionPage(fen || DEFAULT_POSITION);
  else if (path === '/play' || path === '/play.cgi') view = playPage(fen || DEFAULT_POSITION, u.searchParams.get('side'));
  else if (path === '/edit') view = editPage(fen);
  else if (path === '/tables') view = tablesPage();
  else if (path.startsWith('/stats/')) view = statsPage(decodeURIComponent(path.slice(7)));
  else if (path === '/help') view = helpPage();
  else { app().replaceChildren(el('p', { class: 'error', text: t('notfound') })); }
}

function setTitle(s) { document.title = s + ' — xqtb'; }

/** The query system's example, shown at `/`. */
const DEFAULT_POSITION = '4K44B49994n495k399';

// ---------------------------------------------------------------- games
// A position page or play mode belongs to a game: where it started and the plies since, kept
// in the history entry, so that a repeated position can be judged by the Asian rules.

/** The game whose last position is `fen`: the history entry's, else a new one starting there. */
function gameOf(fen) {
  const g = history.state && history.state.game;
  return g && lastFen(g) === fenParam(fen) ? g : { start: fenParam(fen), plies: [] };
}
function lastFen(g) { return g.plies.length ? g.plies[g.plies.length - 1].fen : g.start; }
/** The game after one more ply (a move entry or line step of the API). */
function extend(g, m) {
  return { start: g.start, plies: [...g.plies, { move: m.move, wxf: m.wxf, zh: m.zh, capture: m.capture, fen: fenParam(m.fen) }] };
}
/** Whether the game's last position stood earlier in it. */
function repeated(g) {
  const fens = [g.start, ...g.plies.map((p) => p.fen)];
  return fens.slice(0, -1).includes(fens[fens.length - 1]);
}
/** The game as `/api/mainline` takes it. */
function gameQuery(g) {
  return 'fen=' + fenArg(g.start) + '&moves=' + g.plies.map((p) => p.move).join(',');
}

// ---------------------------------------------------------------- position page

function plies(d) { return t(d === 1 ? 'plies.one' : 'plies.many', { d }); }
/** The piece standing on point `sq` of `pos`, in words ("rook"). */
function pieceName(pos, sq) {
  const { f, r } = parseSq(sq);
  const p = pos.board[r][f];
  return p ? t('piece.' + p.toUpperCase()) : sq;
}

function valueText(r) {
  const side = t('side.' + r.side);
  if (r.result === 'draw') return t('v.draw', { side });
  if (r.result === 'loss' && r.distance === 0 && r.moves.length === 0) return t('v.lossmate', { side, o: r.order });
  if (r.rule) {
    const act = r.rule.kind === 'check' ? t('act.check')
      : t('act.chase', { piece: pieceName(parsePosition(r.fen).pos, r.rule.chased), sq: r.rule.chased });
    const key = r.result === 'win' ? 'v.rule.win' : r.distance === 0 ? 'v.rule.loss0' : 'v.rule.loss';
    return t(key, { side, loser: t('side.' + r.rule.loser), plies: plies(r.distance), act, o: r.order });
  }
  return t('v.' + r.result, { side, plies: plies(r.distance), o: r.order });
}

/** The Asian rules' verdict on a repetition (an `/api/mainline` answer's `repetition`) in words;
 *  `pos` is the repeated position. */
function rulingText(rep, pos) {
  if (!rep.loser) return t(rep.red === 'check' && rep.black === 'check' ? 'rep.mutual' : 'rep.draw');
  const vars = { loser: t('side.' + rep.loser), winner: t('side.' + other(rep.loser)) };
  if (rep.rule === 'check') return t('rep.check', vars);
  return t('rep.chase', { ...vars, piece: pieceName(pos, rep.chased), sq: rep.chased });
}

/** The same board with the other side to move. */
function otherSideToMove(fen) {
  const [board, turn] = fen.trim().split(/\s+/);
  return board + ' ' + (turn === 'b' ? 'w' : 'b');
}

/** Copies `text`; without the clipboard API (an insecure origin), selects `input` and copies. */
async function copyText(text, input, button) {
  try {
    await navigator.clipboard.writeText(text);
  } catch (e) {
    input.select();
    document.execCommand('copy');
  }
  button.textContent = t('btn.copied');
  setTimeout(() => { button.textContent = t('btn.copy'); }, 1500);
}

/** A game and its line from `/api/mainline` as a PGN game record, as Xiangqi programs read it:
 *  `[Game "Chinese Chess"]`, the start `FEN`, moves in WXF (traverse `.`) or, with the UCCI
 *  notation chosen, ICCS (`H2-E2`). */
function pgnOf(game, line) {
  const iccs = prefs.notation === 'ucci';
  const name = (m) => iccs ? (m.move.slice(0, 2) + '-' + m.move.slice(2)).toUpperCase() : m.wxf.replace('=', '.');
  const plies = [...game.plies, ...line.steps];
  const black = game.start.split('_')[1] === 'b' ? 1 : 0;
  const moves = plies.map((m, i) => {
    const k = i + black;
    const num = k % 2 === 0 ? (k / 2 + 1) + '. ' : i === 0 ? '1... ' : '';
    return num + name(m);
  });
  const atEnd = (black + plies.length) % 2 === 0 ? 'w' : 'b';
  const rep = line.repetition;
  const result = rep ? (rep.loser ? (rep.loser === 'b' ? '1-0' : '0-1') : '1/2-1/2')
    : line.end === 'mate' || line.end === 'stalemate' ? (atEnd === 'b' ? '1-0' : '0-1') : '*';
  const endPos = parsePosition(plies.length ? plies[plies.length - 1].fen : game.start).pos;
  const comment = rep ? rulingText(rep, endPos) : t('line.end.' + line.end);
  const today = new Date().toISOString().slice(0, 10).replace(/-/g, '.');
  const tags = [['Game', 'Chinese Chess'], ['Event', 'xqtb principal line'], ['Site', location.host], ['Date', today],
    ['Red', '?'], ['Black', '?'], ['Result', result], ['FEN', game.start.replace('_', ' ') + ' - - 0 1'], ['Format', iccs ? 'ICCS' : 'WXF']];
  const head = tags.map(([k, v]) => '[' + k + ' "' + String(v).replace(/"/g, "'") + '"]').join('\n');
  const words = [...moves, '{' + comment.replace(/[{}]/g, '') + '}', result];
  const body = [];
  let row = '';
  for (const w of words) {
    if (row && row.length + w.length + 1 > 79) { body.push(row); row = ''; }
    row += (row ? ' ' : '') + w;
  }
  body.push(row);
  return head + '\n\n' + body.join('\n') + '\n';
}

/** A server's error message in the page's language: the common ones translated (their details,
 *  file names and positions, as the server wrote them), the rest as they come. */
function errorText(msg) {
  if (prefs.lang !== 'zh' || !msg) return msg;
  const rules = [
    [/^no table for material (\w+): it needs the table file (\S+)/, (m) => `沒有 ${m[1]} 殘局庫：需要殘局庫檔案 ${m[2]}（用 xqtb build ${m[1]} --dir <DIR> 建造）`],
    [/^position is illegal: the side not to move is in check/, () => '局面不合法：非走子方正被將軍。'],
    [/^bad position (.*?): (.*)$/, (m) => `無法解讀局面 ${m[1]}：${m[2]}`],
    [/^table unavailable: (.*)$/, (m) => `殘局庫無法使用：${m[1]}`],
    [/^the request took too long/, () => '請求逾時（伺服器忙碌）：請再試一次。'],
    [/^bad game in `moves`: (.*)$/, (m) => `對局著法有誤：${m[1]}`],
  ];
  for (const [re, f] of rules) {
    const m = re.exec(msg);
    if (m) return f(m);
  }
  return msg;
}

/** The ruling on the game's last position if it repeats an earlier one, else null. */
async function rulingOf(game) {
  if (!repeated(game)) return null;
  const r = await api('/api/mainline?' + gameQuery(game));
  return r.ok ? r.body.repetition : null;
}

/** The move the tables play in a game: at an order above 0 the line that leads through the
 *  perpetual-check or chase ruling (the server searches the pattern), else the first best. */
async function tablesMove(r, game) {
  if (r.order > 0 && r.result !== 'draw' && !byDtm(r)) {
    const line = await api('/api/mainline?' + gameQuery(game));
    if (line.ok && line.body.steps.length) return line.body.steps[0];
  }
  return bestMove(r);
}

/** What a move is worth to the side making it: the opposite of the result after it. */
function moverResult(m) { return { win: 'loss', loss: 'win', draw: 'draw' }[m.result]; }
function moveName(m) { return prefs.notation === 'ucci' ? m.move : prefs.notation === 'wxf' ? m.wxf : m.zh; }
function orderValue(m) {
  if (m.result === 'draw') return '(draw)';
  return '(' + m.order + '-' + String(m.distance).padStart(3, '0') + ')';
}
function other(side) { return side === 'w' ? 'b' : 'w'; }

// ---------------------------------------------------------------- distance to mate (DTM)
// Present only where the directory holds DTM tables (`dtm` in the probe answer, formats/api.md).

/** A DTM level key in words' terms: null for a mate (no nonzero phase), else the phase of the
 *  Asian rules the ruling falls in (the last nonzero entry) and the captures before it (its place). */
function levelWhere(level) {
  let j = -1;
  (level || []).forEach((x, i) => { if (x > 0) j = i; });
  return j < 0 ? null : { captures: j, phase: level[j] };
}
function levelText(level) { return '(' + level.join(', ') + ')'; }

/** The DTM headline of a probe answer that has one. */
function dtmText(r) {
  const d = r.dtm, side = t('side.' + r.side);
  if (d.result === 'draw') return t('dtm.draw');
  const plies = t(d.distance === 1 ? 'plies.one' : 'plies.many', { d: d.distance });
  const where = levelWhere(d.level);
  if (!where) {
    if (d.result === 'loss' && d.distance === 0) return t(r.in_check ? 'dtm.mated' : 'dtm.stalemated', { side });
    return t('dtm.' + d.result, { side, plies });
  }
  const k = levelText(d.level);
  if (d.result === 'loss' && d.distance === 0) return t('dtm.perp0', { side, k });
  return t('dtm.perp.' + d.result, { side, plies, k });
}

/** Where a level's ruling falls, in words. */
function levelNote(level) {
  const w = levelWhere(level);
  const where = t(w.captures === 0 ? 'dtm.where.here' : w.captures === 1 ? 'dtm.where.one' : 'dtm.where.many', { j: w.captures });
  return t('dtm.levelnote', { k: levelText(level), p: w.phase, where });
}

/** A move's DTM as the move list shows it: M and the distance, the level unless a mate's. */
function dtmValue(m) {
  const d = m.dtm;
  if (d.result === 'draw') return 'M—';
  return 'M' + d.distance + (levelWhere(d.level) ? ' ' + levelText(d.level) : '');
}

/** A move's DTM level in the mover's table: a capture's child key K' is (0, K') here. */
function moverKey(m) { return m.capture ? [0, ...m.dtm.level] : m.dtm.level; }
/** Level keys compare lexicographically, a missing entry counting as 0. */
function cmpKey(a, b) {
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    const x = a[i] || 0, y = b[i] || 0;
    if (x !== y) return x - y;
  }
  return 0;
}
const RANK = { win: 0, draw: 1, loss: 2 };
/** Fang's Definition 9 with level keys, for the mover: wins first, the lowest level, then the
 *  shortest; draws; losses, the highest level, then the longest. Ties keep the DTC order. */
function cmpDtm(a, b) {
  const ga = moverResult(a.dtm), gb = moverResult(b.dtm);
  if (ga !== gb) return RANK[ga] - RANK[gb];
  if (ga === 'win') return cmpKey(moverKey(a), moverKey(b)) || a.dtm.distance - b.dtm.distance;
  if (ga === 'loss') return cmpKey(moverKey(b), moverKey(a)) || b.dtm.distance - a.dtm.distance;
  return 0;
}
/** Whether this answer's moves follow DTM: the switch says so and the answer has DTM. */
function byDtm(r) { return prefs.metric === 'dtm' && !!r.dtm; }
/** The moves in the chosen metric's order (the server's order is DTC's). */
function orderedMoves(r) { return byDtm(r) ? r.moves.slice().sort(cmpDtm) : r.moves; }
function isBest(r, m) { return byDtm(r) ? m.dtm.best : m.best; }
/** The move "suggested move", play mode and "play to mate" make: the first best one. */
function bestMove(r) {
  const ms = orderedMoves(r);
  return ms.find((m) => isBest(r, m)) || ms[0];
}

function positionPage(text) {
  const root = app();
  let parsed = null;
  try { parsed = parsePosition(text); } catch (e) { /* the server names the problem */ }
  if (parsed && parsed.blackView && !positionPage.flipSet) prefs.flipped = true;
  const board = makeBoard();
  const side = el('div', { class: 'side-col' });
  const boardCol = el('div', { class: 'board-col' }, board.svg);
  root.replaceChildren(el('div', { class: 'layout' }, boardCol, side));
  let result = null, game = gameOf(text), ruling = null;
  const last = session.get('xqtb.last:' + fenParam(text));
  if (parsed) board.setPosition(parsed.pos, last);
  side.append(el('p', { class: 'small', text: t('loading') }));

  const stopLine = () => { stopAutoplay(); render(); };
  const showError = (msg) => side.prepend(el('p', { class: 'error' }, msg));
  // A move starts a new game once the rules have ended the old one.
  const play = (m) => {
    stopAutoplay();
    session.set('xqtb.last:' + fenParam(m.fen), m.move);
    const g = ruling ? { start: fenParam(result.fen), plies: [] } : game;
    go('/?fen=' + fenParam(m.fen), true, { game: extend(g, m) });
  };
  const suggest = async () => {
    if (!result || !result.moves.length || ruling) return;
    play(await tablesMove(result, game));
  };
  const playLine = async () => {
    const r = await api('/api/mainline?' + gameQuery(game));
    if (!r.ok) { showError(errorText(r.body.error)); return; }
    if (!r.body.steps.length && r.body.repetition) { ruling = r.body.repetition; render(); return; }
    autoplay = { steps: r.body.steps, end: r.body.end, i: 0, timer: null, game };
    advanceLine();
  };
  // DTM has no principal-line endpoint: the line plays the DTM best move page by page.
  const playMate = () => {
    stopAutoplay();
    autoplay = { dtm: true, plies: 0, timer: null, game };
    advanceMate(result);
  };
  const setMetric = (m) => {
    prefs.metric = m;
    local.set('xqtb.metric', m);
    stopAutoplay();
    render();
  };
  const flip = () => { prefs.flipped = !prefs.flipped; positionPage.flipSet = true; route(); };
  // The game so far and its principal line from here, as a game record.
  const downloadPgn = async () => {
    const line = await api('/api/mainline?' + gameQuery(game));
    if (!line.ok) { showError(errorText(line.body.error)); return; }
    const url = URL.createObjectURL(new Blob([pgnOf(game, line.body)], { type: 'application/x-chess-pgn' }));
    const a = el('a', { href: url, download: 'xqtb-' + result.material + '.pgn' });
    document.body.append(a);
    a.click();
    a.remove();
    setTimeout(() => URL.revokeObjectURL(url), 10000);
  };
  function render() {
    side.textContent = '';
    if (!result) return;
    const r = result;
    if (r.bounds) { renderPartial(side, r, flip, board); return; }
    const dtm = !!r.dtm, mate = byDtm(r);
    side.append(el('div', { class: 'value ' + r.result, id: 'value' }, valueText(r)));
    if (ruling) side.append(el('p', { class: 'notice ruling', id: 'ruling' }, rulingText(ruling, parsePosition(r.fen).pos)));
    if (dtm) side.append(el('div', { class: 'value dtm ' + r.dtm.result, id: 'dtm-value' }, dtmText(r)));
    if (r.in_check) side.append(el('div', { class: 'small' }, '⚠ ' + t('check')));
    const explain = el('p', { class: 'explain' }, t('explain'), ' ', el('a', { href: '/help#order', 'data-nav': '' }, t('more')));
    side.append(explain);
    if (dtm) side.append(el('p', { class: 'explain', id: 'dtm-explain' }, t('explain.dtm'), ' ', el('a', { href: '/help#dtm', 'data-nav': '' }, t('more'))));
    if (r.order > 0) {
      side.append(el('p', { class: 'notice', id: 'order-note' }, t('explain.orders', { o: r.order }),
        r.rule && !ruling ? ' ' + t('rule.marks') : ''));
    }
    if (dtm && levelWhere(r.dtm.level)) side.append(el('p', { class: 'notice', id: 'dtm-level-note' }, levelNote(r.dtm.level)));
    const lineEnd = session.get('xqtb.lineEnd:' + fenParam(r.fen));
    if (lineEnd && !ruling) side.append(el('p', { class: 'notice', id: 'line-end' }, t('line.end.' + lineEnd)));
    const over = !!ruling || !r.moves.length;
    side.append(el('div', { class: 'toolbar' },
      el('button', { id: 'back', type: 'button', onclick: () => history.back(), title: '←' }, t('btn.back')),
      el('button', { id: 'forward', type: 'button', onclick: () => history.forward(), title: '→' }, t('btn.fwd')),
      el('button', { id: 'suggest', class: 'primary', type: 'button', disabled: over, onclick: suggest, title: 'space' }, t('btn.suggest')),
      autoplay
        ? el('button', { id: 'stop', type: 'button', onclick: stopLine }, t('btn.stop'))
        : mate
          ? el('button', { id: 'play-mate', type: 'button', disabled: r.result === 'draw' || over, onclick: playMate }, t('btn.mate'))
          : el('button', { id: 'play-line', type: 'button', disabled: r.result === 'draw' || over, onclick: playLine }, t('btn.line')),
      el('button', { id: 'flip', type: 'button', onclick: flip, title: 'f' }, t('btn.flip')),
      el('a', { id: 'to-play', class: 'btn', href: '/play?fen=' + fenParam(r.fen), 'data-nav': '' }, t('btn.play')),
      el('a', { id: 'to-edit', class: 'btn', href: '/edit?fen=' + fenParam(r.fen), 'data-nav': '' }, t('btn.edit'))));
    if (!r.moves.length) {
      side.append(el('p', { class: 'notice' }, t('nomoves', { side: t('side.' + r.side), how: t(r.in_check ? 'mated' : 'stalemated') })));
    }
    if (dtm && r.moves.length) {
      const pick = (m, name) => el('button', { type: 'button', id: 'metric-' + m, 'aria-pressed': String(prefs.metric === m), title: t('metric.' + m), onclick: () => setMetric(m) }, name);
      side.append(el('div', { class: 'metric', id: 'metric', role: 'group', 'aria-label': t('metric.label') },
        el('span', { class: 'small' }, t('metric.label')), pick('dtc', 'DTC'), pick('dtm', 'DTM')));
    }
    side.append(moveList(r, board, play));
    if (r.moves.length) side.append(el('p', { class: 'small' }, t('legend')));
    if (dtm && r.moves.length) side.append(el('p', { class: 'small' }, t('legend.dtm')));
    const fenIn = el('input', { type: 'text', id: 'fen', value: r.fen, 'aria-label': t('fen'), spellcheck: 'false',
      onkeydown: (ev) => { if (ev.key === 'Enter') load(); } });
    const load = () => go('/?fen=' + fenArg(fenIn.value));
    const copy = el('button', { type: 'button', id: 'copy-fen', onclick: () => copyText(r.fen, fenIn, copy) }, t('btn.copy'));
    side.append(el('div', { class: 'fenbox' }, fenIn, el('button', { type: 'button', onclick: load }, t('btn.load')), copy));
    side.append(el('div', { class: 'toolbar' },
      el('a', { id: 'switch-side', class: 'btn', href: '/?fen=' + fenArg(otherSideToMove(r.fen)), 'data-nav': '' }, t('btn.side')),
      el('button', { type: 'button', id: 'pgn', disabled: r.result === 'draw' && !game.plies.length, onclick: downloadPgn }, t('btn.pgn'))));
    side.append(el('p', { class: 'small' }, t('qstring') + ': ', el('code', { id: 'qstring' }, r.qstring), ' · ', el('a', { href: '/stats/' + r.material, 'data-nav': '' }, r.material), ' · ', t('keys')));
  }

  (async () => {
    const r = await api('/api/probe?fen=' + fenArg(text));
    if (!r.ok) {
      side.replaceChildren(el('p', { class: 'error', id: 'error' }, errorText(r.body.error || ('HTTP ' + r.status))),
        el('div', { class: 'toolbar' },
          el('button', { id: 'back', type: 'button', onclick: () => history.back() }, t('btn.back')),
          el('a', { class: 'btn', href: '/edit?fen=' + fenArg(text), 'data-nav': '' }, t('btn.edit'))));
      return;
    }
    result = r.body;
    // A game that starts here is named by the server's FEN (the address may hold the classic string).
    if (!game.plies.length) game = { start: fenParam(result.fen), plies: [] };
    ruling = await rulingOf(game);
    setTitle(result.material + ' ' + fenParam(result.fen));
    board.setPosition(parsePosition(result.fen).pos, last);
    if (ruling) board.markRule([], ruling.chased);
    else if (result.rule) board.markRule(result.rule.by, result.rule.chased);
    if (!ruling && result.moves) board.interactive(result.moves.map((m) => m.move), (mv) => play(result.moves.find((m) => m.move === mv)));
    render();
    const r0 = result;
    if (autoplay) autoplay.timer = setTimeout(() => (autoplay && autoplay.dtm ? advanceMate(r0) : advanceLine()), 400);
  })();

  return {
    key(ev) {
      if (ev.key === 'ArrowLeft') { history.back(); return true; }
      if (ev.key === 'ArrowRight') { history.forward(); return true; }
      if (ev.key === ' ') { suggest(); return true; }
      if (ev.key === 'f') { flip(); return true; }
      return false;
    },
  };
}

/** A position of a partial table (formats/partial.md): its bounds in words, what the table
 *  was built without; no moves (their values are bounds too). */
function renderPartial(side, r, flip, board) {
  const b = t('bounds.' + r.bounds);
  const exact = r.distance === null ? '' : ': ' + plies(r.distance) + ', ' + t('order', { o: r.order });
  side.append(el('div', { class: 'value partial ' + (r.lower === r.upper ? r.lower : ''), id: 'value' },
    t('partial.value', { side: t('side.' + r.side), b, exact })));
  if (r.dtm) side.append(el('div', { class: 'value dtm ' + r.dtm.result, id: 'dtm-value' }, dtmText(r)));
  side.append(el('p', { class: 'notice', id: 'partial-note' }, t('partial.note', { without: r.without.join(', ') })));
  side.append(el('div', { class: 'toolbar' },
    el('button', { id: 'back', type: 'button', onclick: () => history.back() }, t('btn.back')),
    el('button', { id: 'flip', type: 'button', onclick: flip }, t('btn.flip')),
    el('a', { id: 'to-edit', class: 'btn', href: '/edit?fen=' + fenParam(r.fen), 'data-nav': '' }, t('btn.edit'))));
  side.append(partialMoves(r, board));
  if (r.moves.length) side.append(el('p', { class: 'small' }, t('legend.partial')));
  if (r.moves.some(m => m.dtm)) side.append(el('p', { class: 'small' }, t('legend.dtm')));
  side.append(el('p', { class: 'small' }, el('code', { id: 'fen' }, r.fen)));
}

/** A partial table's moves, each with the bounds of the position it leads to (for the side to
 * move there), as links to it: proven best first (formats/api.md). */
function partialMoves(r, board) {
  const ol = el('ol', {});
  for (const m of r.moves) {
    const exact = (m.distance === null ? '' : ' (' + m.order + '-' + String(m.distance).padStart(3, '0') + ')')
      + (m.dtm ? ' ' + dtmValue(m) : '');
    const flags = (m.best ? '*' : '') + (m.capture ? 'c' : '') + (m.check ? '+' : '');
    const cls = m.lower === m.upper ? moverOf(m.lower) : '';
    ol.append(el('li', { class: cls + (m.best ? ' best' : ''), 'data-move': m.move },
      el('button', { type: 'button', title: `${m.move} · ${m.wxf} · ${m.zh}`, onclick: () => go('/?fen=' + fenParam(m.fen)),
        onmouseenter: () => board.arrow(m.move), onmouseleave: () => board.arrow(null),
        onfocus: () => board.arrow(m.move), onblur: () => board.arrow(null) },
      el('span', { class: 'n' }, moveName(m)),
      el('span', { class: 'v' }, t('bounds.' + m.bounds) + exact),
      el('span', { class: 'f' }, flags))));
  }
  return el('div', { class: 'moves partial', id: 'moves' }, ol);
}
/** The mover's outcome when the side to move after the move has `o`. */
function moverOf(o) { return o === 'win' ? 'loss' : o === 'loss' ? 'win' : 'draw'; }

/** The legal moves of a probe answer, grouped by their result for the mover, as buttons. */
function moveList(r, board, play) {
  const dtm = !!r.dtm;
  const levels = dtm && r.moves.some((m) => levelWhere(m.dtm.level));
  const moves = el('div', { class: 'moves' + (dtm ? ' dtm' : '') + (levels ? ' levels' : ''), id: 'moves' });
  const ordered = orderedMoves(r);
  for (const g of ['win', 'draw', 'loss']) {
    const ms = ordered.filter((m) => moverResult(m) === g);
    if (!ms.length) continue;
    moves.append(el('h3', { class: g }, t('g.' + g) + ' (' + ms.length + ')'));
    const ol = el('ol', {});
    for (const m of ms) {
      const chases = m.chases || [];
      const best = isBest(r, m);
      const flags = (best ? '*' : '') + (m.capture ? 'c' : '') + (m.check ? '+' : '') + (chases.length ? '~' : '');
      const title = `${m.move} · ${m.wxf} · ${m.zh} → ${t('side.' + other(r.side))}: ${m.result}${m.distance === null ? '' : ' ' + m.distance}` +
        (dtm ? ` · DTM ${m.dtm.result}${m.dtm.distance === null ? '' : ' ' + m.dtm.distance}${levelWhere(m.dtm.level) ? ' ' + levelText(m.dtm.level) : ''}` : '') +
        (chases.length ? ' · ' + t('chases', { points: chases.join(' ') }) : '');
      const b = el('button', { type: 'button', title, onclick: () => play(m),
        onmouseenter: () => board.arrow(m.move), onmouseleave: () => board.arrow(null),
        onfocus: () => board.arrow(m.move), onblur: () => board.arrow(null) },
      el('span', { class: 'n' }, moveName(m)),
      el('span', { class: 'v' + (dtm && m.best ? ' best' : '') }, orderValue(m)),
      dtm ? el('span', { class: 'm' + (m.dtm.best ? ' best' : '') }, dtmValue(m)) : null,
      el('span', { class: 'f' }, flags));
      ol.append(el('li', { class: g + (best ? ' best' : ''), 'data-move': m.move }, b));
    }
    moves.append(ol);
  }
  return moves;
}

/** The principal line being played out, one ply per page, or null. */
let autoplay = null;
function stopAutoplay() {
  if (autoplay) clearTimeout(autoplay.timer);
  autoplay = null;
}
function advanceLine() {
  const a = autoplay;
  if (!a) return;
  if (a.i >= a.steps.length) { autoplay = null; route(); return; }
  const s = a.steps[a.i++];
  a.game = extend(a.game, s);
  session.set('xqtb.last:' + fenParam(s.fen), s.move);
  if (a.i === a.steps.length) {
    // A repetition is judged by the page it ends on (its game repeats a position).
    if (a.end !== 'repetition') session.set('xqtb.lineEnd:' + fenParam(s.fen), a.end);
    autoplay = null;
  }
  go('/?fen=' + fenParam(s.fen), true, { game: a.game });
}
/** One ply of the DTM line from the position `r` shows, or its end. */
function advanceMate(r) {
  const a = autoplay;
  if (!a || !a.dtm) return;
  const end = !r.dtm ? 'nodtm'
    : !r.moves.length ? (r.in_check ? 'mate' : 'stalemate')
      : r.dtm.result === 'draw' ? 'draw'
        : r.dtm.distance === 0 && levelWhere(r.dtm.level) ? 'perpetual'
          : a.plies >= 2000 ? 'limit' : null;
  if (end) {
    session.set('xqtb.lineEnd:' + fenParam(r.fen), end);
    autoplay = null;
    route();
    return;
  }
  const m = bestMove(r);
  a.plies++;
  a.game = extend(a.game, m);
  session.set('xqtb.last:' + fenParam(m.fen), m.move);
  go('/?fen=' + fenParam(m.fen), true, { game: a.game });
}

// ---------------------------------------------------------------- play mode

function playPage(text, userSide) {
  const root = app();
  const boardCol = el('div', { class: 'board-col' });
  const side = el('div', { class: 'side-col' });
  root.replaceChildren(el('div', { class: 'layout' }, boardCol, side));
  let board = null, cur = null, timer = null, game = gameOf(text);
  let you = userSide === 'b' || userSide === 'w' ? userSide : null;
  const url = (fen) => '/play?fen=' + fenParam(fen) + '&side=' + you;
  // The player's side at the bottom, unless the board was flipped by hand.
  const drawBoard = () => {
    if (you && !positionPage.flipSet) prefs.flipped = you === 'b';
    if (!board || board.flipped !== prefs.flipped) {
      board = makeBoard();
      boardCol.replaceChildren(board.svg);
    }
  };
  const moveTo = (m) => {
    game = extend(game, m);
    history.pushState({ game }, '', url(m.fen));
    load(m.fen, m.move);
  };
  const flip = () => { prefs.flipped = !prefs.flipped; positionPage.flipSet = true; route(); };

  async function load(fen, last) {
    const r = await api('/api/probe?fen=' + fenArg(fen));
    side.textContent = '';
    if (!r.ok) {
      drawBoard();
      try { board.setPosition(parsePosition(fen).pos, last); } catch (e) { /* the error says why */ }
      side.append(el('p', { class: 'error', id: 'error' }, errorText(r.body.error)),
        el('div', { class: 'toolbar' },
          el('button', { type: 'button', onclick: () => history.back() }, t('btn.back')),
          el('a', { class: 'btn', href: '/edit?fen=' + fenArg(fen), 'data-nav': '' }, t('btn.edit'))));
      return;
    }
    cur = r.body;
    if (!game.plies.length) game = { start: fenParam(cur.fen), plies: [] };
    if (!you) { you = cur.side; history.replaceState({ game }, '', url(cur.fen)); }
    drawBoard();
    const pos = parsePosition(cur.fen).pos;
    board.setPosition(pos, last);
    side.append(el('h1', {}, t('play.title')));
    side.append(el('p', { class: 'small' }, t('play.hint')));
    side.append(el('p', {}, t('play.you', { side: t('side.' + you) })));
    const status = el('p', { class: 'value', id: 'play-status' });
    side.append(status);
    const lastPly = game.plies[game.plies.length - 1];
    if (lastPly && lastPly.capture) side.append(el('p', { class: 'notice' }, t('play.converted')));
    side.append(el('div', { class: 'toolbar' },
      el('a', { id: 'lookup', class: 'btn', href: '/?fen=' + fenParam(cur.fen), 'data-nav': '' }, t('btn.lookup')),
      el('button', { type: 'button', onclick: () => history.back() }, t('btn.back')),
      el('button', { type: 'button', id: 'flip', onclick: flip }, t('btn.flip'))));
    if (game.plies.length) {
      side.append(gameMoves(game));
    }
    const ruling = await rulingOf(game);
    if (ruling) {
      status.textContent = t('play.over.rule', { text: rulingText(ruling, pos) });
      board.markRule([], ruling.chased);
      return;
    }
    if (!cur.moves.length) {
      const how = t(cur.in_check ? 'mated' : 'stalemated');
      status.textContent = cur.side === you ? t('play.over.lost', { how }) : t('play.over.won', { how });
      return;
    }
    if (cur.side === you) {
      status.textContent = t('play.yourmove');
      board.interactive(cur.moves.map((m) => m.move), (mv) => moveTo(cur.moves.find((x) => x.move === mv)));
      // The moves as plain buttons too (small screens, keyboards), without values.
      const list = el('div', { class: 'moves', id: 'moves' }, el('ol', {}, cur.moves.slice().sort((a, b) => a.move < b.move ? -1 : 1).map((m) =>
        el('li', { 'data-move': m.move }, el('button', { type: 'button', onclick: () => moveTo(m),
          onmouseenter: () => board.arrow(m.move), onmouseleave: () => board.arrow(null) }, el('span', { class: 'n' }, moveName(m)))))));
      side.append(list);
    } else {
      status.textContent = t('play.thinking');
      const r0 = cur;
      timer = setTimeout(async () => { const m = await tablesMove(r0, game); if (cur === r0) moveTo(m); }, 600);
    }
  }
  load(text, null);
  return { leave() { clearTimeout(timer); cur = null; } };
}

/** The moves of a game, a numbered row per move (Red's ply, then Black's). */
function gameMoves(game) {
  const black = game.start.split('_')[1] === 'b';
  const plies = [...(black ? [null] : []), ...game.plies];
  const rows = [];
  for (let i = 0; i < plies.length; i += 2) {
    rows.push(el('li', {}, plies.slice(i, i + 2).map((p) => el('span', { class: 'ply' }, p ? moveName(p) : '…'))));
  }
  return el('ol', { class: 'game', id: 'game-moves' }, rows);
}

// ---------------------------------------------------------------- board editor

function editPage(text) {
  const root = app();
  let pos = emptyPosition();
  let problem = null;
  if (text) {
    try { pos = parsePosition(text).pos; } catch (e) { problem = e.message; }
  } else {
    pos = parsePosition('4k4/4a4/9/9/9/4N4/9/5K3/9/9 w').pos;
  }
  let tool = 'N';
  const side = el('div', { class: 'side-col' });
  const boardCol = el('div', { class: 'board-col' });
  root.replaceChildren(el('div', { class: 'layout' }, boardCol, side));
  setTitle(t('edit.title'));
  let board;
  const msg = el('div', { id: 'edit-status' });
  const fenIn = el('input', { type: 'text', id: 'edit-fen', spellcheck: 'false', 'aria-label': 'FEN' });
  const qsIn = el('input', { type: 'text', id: 'edit-qs', spellcheck: 'false', 'aria-label': t('qstring') });
  let checkSeq = 0;

  async function check() {
    const fen = toFen(pos);
    fenIn.value = fen;
    qsIn.value = toQstring(pos);
    const local = setupProblem(pos);
    const seq = ++checkSeq;
    if (local) { msg.replaceChildren(el('p', { class: 'error' }, local)); return; }
    const r = await api('/api/probe?fen=' + fenArg(fen));
    if (seq !== checkSeq) return;
    if (r.ok) {
      msg.replaceChildren(el('p', { class: 'notice' }, t('edit.ok'), ' ', valueText(r.body), r.body.dtm ? ' · ' + dtmText(r.body) : ''));
    } else if (r.status === 404) {
      msg.replaceChildren(el('p', { class: 'notice' }, t('edit.notable', { msg: errorText(r.body.error) })));
    } else {
      // The one rule only the server checks here: the side not to move must not be in check.
      const check = /(Red|Black), the side not to move, is in check/.exec(r.body.error || '');
      msg.replaceChildren(el('p', { class: 'error' }, check
        ? t('rule.check', { side: t('side.' + (check[1] === 'Red' ? 'w' : 'b')) })
        : t('rule.server', { msg: errorText(r.body.error) })));
    }
  }
  function draw() {
    board = makeBoard();
    boardCol.replaceChildren(board.svg);
    board.setPosition(pos, null);
    board.svg.addEventListener('contextmenu', (ev) => ev.preventDefault());
    board.svg.onpointerdown = (ev) => {
      const p = board.pointAt(ev);
      if (!p) return;
      const erase = tool === '' || ev.button === 2;
      pos.board[p.r][p.f] = erase ? '' : (pos.board[p.r][p.f] === tool ? '' : tool);
      board.setPosition(pos, null);
      check();
    };
  }
  const palette = el('div', { class: 'palette', id: 'palette' });
  const tools = [...'KABRNCP', ...'kabrncp', ''];
  for (const p of tools) {
    const label = p ? (prefs.pieces === 'latin' ? ({ B: 'E', N: 'H' }[p.toUpperCase()] || p.toUpperCase()) : HAN[p.toUpperCase()][isRed(p) ? 0 : 1]) : '✕';
    const b = el('button', { type: 'button', class: p ? (isRed(p) ? 'red' : 'black') : '', title: p ? t('piece.' + p.toUpperCase()) : t('edit.erase'), 'data-tool': p,
      onclick: () => { tool = p; palette.querySelectorAll('button').forEach((x) => x.classList.toggle('on', x === b)); } }, label);
    if (p === tool) b.classList.add('on');
    palette.append(b);
  }
  const turnSel = el('select', { id: 'edit-turn', onchange: () => { pos.turn = turnSel.value; check(); } },
    el('option', { value: 'w' }, t('side.w')), el('option', { value: 'b' }, t('side.b')));
  turnSel.value = pos.turn;
  const load = (v) => {
    try { pos = parsePosition(v).pos; turnSel.value = pos.turn; draw(); check(); } catch (e) { msg.replaceChildren(el('p', { class: 'error' }, e.message)); }
  };
  // Enter in either box loads it, as its button does.
  for (const box of [fenIn, qsIn]) box.addEventListener('keydown', (ev) => { if (ev.key === 'Enter') load(box.value); });
  side.append(el('h1', {}, t('edit.title')), el('p', { class: 'small' }, t('edit.hint')), palette,
    el('p', {}, el('label', {}, t('edit.side') + ' ', turnSel)),
    el('div', { class: 'toolbar' },
      el('button', { type: 'button', id: 'edit-clear', onclick: () => { pos = emptyPosition(); pos.turn = turnSel.value; draw(); check(); } }, t('btn.clear')),
      el('button', { type: 'button', onclick: () => { const k = emptyPosition(); k.turn = turnSel.value; k.board[0][4] = 'K'; k.board[9][4] = 'k'; k.board[8][4] = 'a'; pos = k; draw(); check(); } }, t('btn.kings')),
      el('button', { type: 'button', onclick: () => load('rnbakabnr/9/1c5c1/p1p1p1p1p/9/9/P1P1P1P1P/1C5C1/9/RNBAKABNR w') }, t('btn.start'))),
    msg,
    el('p', {}, el('label', {}, t('fen')), el('div', { class: 'fenbox' }, fenIn, el('button', { type: 'button', onclick: () => load(fenIn.value) }, t('btn.load')))),
    el('p', {}, el('label', {}, t('qstring')), el('div', { class: 'fenbox' }, qsIn, el('button', { type: 'button', onclick: () => load(qsIn.value) }, t('btn.load')))),
    el('div', { class: 'toolbar' },
      el('button', { type: 'button', class: 'primary', id: 'edit-analyse', onclick: () => go('/?fen=' + fenArg(toFen(pos))) }, t('btn.analyse')),
      el('button', { type: 'button', onclick: () => go('/play?fen=' + fenArg(toFen(pos))) }, t('btn.play'))));
  draw();
  if (problem) msg.replaceChildren(el('p', { class: 'error' }, problem)); else check();
  return {};
}

// ---------------------------------------------------------------- tables page

function attackers(material) {
  const k2 = material.indexOf('K', 1);
  const part = (s) => [...s].filter((c) => 'RCNP'.includes(c)).join('');
  return [part(material.slice(1, k2)), part(material.slice(k2 + 1))];
}
/** The classic system's kinds of ending, by Red's attacking pieces (the side listed first). */
const KINDS = ['rook', 'horse', 'cannon', 'pawn', 'misc'];
function kindOf(material) {
  const [red] = attackers(material);
  if (red.includes('R')) return 'rook';
  const one = { N: 'horse', C: 'cannon', P: 'pawn' }[red[0]];
  return one && [...red].every((c) => c === red[0]) ? one : 'misc';
}
function pieceCount(material) { return [...material].filter((c) => c !== 'K').length; }

/** The longest wins of a table: of order 0 and of its highest order shown, the rest folded. */
function longestCell(list) {
  if (!list.length) return '—';
  const link = (l) => el('a', { href: '/?fen=' + fenParam(l.fen), 'data-nav': '', class: 'longest', title: t('tables.longest.title', { o: l.order, d: l.distance }) }, l.order + ': ' + l.distance);
  const shown = [...new Set([list[0], list[list.length - 1]])];
  const rest = list.filter((l) => !shown.includes(l));
  const cell = shown.flatMap((l, i) => [i ? ' · ' : '', link(l)]);
  if (rest.length) {
    cell.push(el('details', { class: 'more-orders' }, el('summary', {}, t('tables.more', { n: rest.length })),
      el('div', { class: 'order-links' }, rest.flatMap((l, i) => [i ? ' ' : '', link(l)]))));
  }
  return cell;
}

const TABLE_COLUMNS = {
  material: (x) => [pieceCount(x.material), x.material],
  positions: (x) => x.positions,
  redwin: (x) => x.red_win_pct,
  blackdraw: (x) => x.black_draw_pct,
  longest: (x) => Math.max(0, ...x.longest_wins.map((l) => l.distance)),
  size: (x) => x.file_bytes,
};
function cmpBy(key, dir) {
  const f = TABLE_COLUMNS[key];
  return (x, y) => {
    const [a, b] = [f(x), f(y)];
    const c = Array.isArray(a) ? (a[0] - b[0] || (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0)) : a - b;
    return dir * c || (x.material < y.material ? -1 : 1);
  };
}

function tablesPage() {
  const root = app();
  setTitle(t('tables.title'));
  root.replaceChildren(el('h1', {}, t('tables.title')), el('p', { class: 'small' }, t('loading')));
  let data = null, sort = { key: 'material', dir: 1 };
  function render() {
    const { tables, unavailable } = data;
    const out = [el('h1', {}, t('tables.title'))];
    if (!tables.length && !unavailable.length) out.push(el('p', { class: 'notice' }, t('tables.none')));
    if (tables.length) {
      const head = el('tr', {}, Object.keys(TABLE_COLUMNS).map((k) => {
        const mark = sort.key === k ? (sort.dir > 0 ? ' ▲' : ' ▼') : '';
        return el('th', { class: k === 'longest' ? 'left' : null, 'aria-sort': sort.key === k ? (sort.dir > 0 ? 'ascending' : 'descending') : null },
          el('button', { type: 'button', class: 'sort', 'data-sort': k, onclick: () => { sort = { key: k, dir: sort.key === k ? -sort.dir : 1 }; render(); } }, t('tables.' + k) + mark));
      }));
      const bodies = KINDS.map((kind) => {
        const rows = tables.filter((x) => kindOf(x.material) === kind).sort(cmpBy(sort.key, sort.dir));
        if (!rows.length) return null;
        return el('tbody', { 'data-kind': kind },
          el('tr', { class: 'group' }, el('th', { colspan: 6, scope: 'rowgroup' }, t('tables.kind.' + kind) + ' (' + rows.length + ')')),
          rows.map((x) => el('tr', { 'data-material': x.material },
            el('td', {}, el('a', { href: '/stats/' + x.material, 'data-nav': '' }, x.material)),
            el('td', { class: 'num' }, fmtInt(x.positions)), el('td', { class: 'num' }, x.red_win_pct.toFixed(2)),
            el('td', { class: 'num' }, x.black_draw_pct.toFixed(2)),
            el('td', { class: 'longest-cell' }, longestCell(x.longest_wins)), el('td', { class: 'num' }, fmtBytes(x.file_bytes)))));
      });
      out.push(el('p', { class: 'small' }, t('tables.note')));
      out.push(el('div', { class: 'scroll' }, el('table', { class: 'data tables', id: 'tables' }, el('thead', {}, head), bodies)));
    }
    if (unavailable.length) {
      out.push(el('h2', {}, t('tables.unavailable')));
      out.push(el('ul', {}, unavailable.map((u) => el('li', { class: 'error' }, u.file + ': ' + u.error))));
    }
    root.replaceChildren(...out);
  }
  (async () => {
    const r = await api('/api/tables');
    if (!r.ok) { root.append(el('p', { class: 'error' }, r.body.error)); return; }
    data = r.body;
    render();
  })();
  return {};
}

// ---------------------------------------------------------------- statistics page

function histogram(entries, order) {
  const es = entries.filter((e) => e.order === order);
  const maxD = Math.max(1, ...es.map((e) => e.distance));
  const maxN = Math.max(1, ...es.map((e) => e.positions));
  const w = 640, h = 220, l = 84, b = 30, bw = (w - l - 8) / (maxD + 1);
  const svg = sv('svg', { class: 'chart', viewBox: `0 0 ${w} ${h + 8}`, role: 'img', 'data-order': order });
  svg.append(sv('line', { class: 'axis', x1: l, y1: h - b, x2: w - 4, y2: h - b }), sv('line', { class: 'axis', x1: l, y1: 6, x2: l, y2: h - b }));
  for (const f of [0, 0.5, 1]) {
    const y = h - b - f * (h - b - 10);
    svg.append(sv('text', { x: l - 6, y: y + 6, 'text-anchor': 'end' }, fmtCompact(Math.round(f * maxN))));
  }
  for (const e of es) {
    const bh = (e.positions / maxN) * (h - b - 10);
    const x = l + e.distance * bw;
    svg.append(sv('rect', { class: e.distance % 2 ? 'bw' : 'bl', x: x + 0.5, y: h - b - bh, width: Math.max(1, bw - 1), height: bh },
      sv('title', {}, `${e.distance}: ${fmtInt(e.positions)}`)));
  }
  const step = [1, 2, 5, 10, 20, 50, 100, 200, 500].find((k) => maxD / k <= 10) || 1000;
  for (let d = 0; d <= maxD; d += step) {
    svg.append(sv('text', { x: l + d * bw + bw / 2, y: h - 6, 'text-anchor': 'middle' }, d));
  }
  return svg;
}

/** A most advanced pawn's rank, counted from its owner's back rank, with its name. */
function pawnRank(rank) {
  if (rank === null) return t('stats.nopawn');
  const name = rank <= 4 ? 'stats.pawn.home' : rank <= 7 ? 'stats.pawn.high' : rank === 8 ? 'stats.pawn.low' : 'stats.pawn.bottom';
  return rank + ' · ' + t(name);
}

function statsPage(material) {
  const root = app();
  setTitle(material);
  root.replaceChildren(el('h1', {}, t('stats.title', { m: material })), el('p', { class: 'small' }, t('loading')));
  (async () => {
    const r = await api('/api/stats/' + encodeURIComponent(material));
    if (r.status === 404) {
      const p = await api('/api/partial/' + encodeURIComponent(material));
      if (p.ok) { root.replaceChildren(...partialReport(p.body)); return; }
    }
    if (!r.ok) { root.append(el('p', { class: 'error', id: 'error' }, errorText(r.body.error))); return; }
    const s = r.body;
    if (s.material !== material) history.replaceState(null, '', '/stats/' + s.material);
    const out = [el('h1', { id: 'stats-title' }, t('stats.title', { m: s.material }))];
    out.push(el('p', { class: 'small' }, t('stats.file', { f: s.file, b: fmtBytes(s.file_bytes), r: s.rule_set })));
    const rw = s.sides.w.legal ? s.sides.w.win / s.sides.w.legal : 0;
    const bd = s.sides.b.legal ? s.sides.b.draw / s.sides.b.legal : 0;
    out.push(el('p', { class: 'notice' }, t(rw >= 0.98 ? 'stats.verdict.redwin' : bd >= 0.98 ? 'stats.verdict.draw' : 'stats.verdict.open')));
    const rows = ['w', 'b'].map((k) => {
      const x = s.sides[k];
      return el('tr', { 'data-side': k }, el('td', {}, t('side.' + k)), el('td', {}, fmtInt(x.legal)),
        el('td', {}, fmtInt(x.win) + ' (' + pct(x.win, x.legal) + '%)'), el('td', {}, fmtInt(x.draw) + ' (' + pct(x.draw, x.legal) + '%)'),
        el('td', {}, fmtInt(x.loss) + ' (' + pct(x.loss, x.legal) + '%)'),
        el('td', {}, el('div', { class: 'bar' }, el('span', { class: 'w', style: `width:${pct(x.win, x.legal)}%` }),
          el('span', { class: 'd', style: `width:${pct(x.draw, x.legal)}%` }), el('span', { class: 'l', style: `width:${pct(x.loss, x.legal)}%` }))));
    });
    out.push(el('div', { class: 'scroll' }, el('table', { class: 'data', id: 'wdl' }, el('thead', {}, el('tr', {},
      ['stats.side', 'stats.legal', 'stats.win', 'stats.draw', 'stats.loss'].map((k) => el('th', {}, t(k))), el('th', {}, ''))), el('tbody', {}, rows))));
    // Per order, both sides to move: positions won and lost, and the longest win.
    out.push(el('h2', {}, t('stats.orders')));
    const rowsOf = s.orders.map((o) => el('tr', { 'data-order': o.order },
      el('td', { class: 'num' }, o.order), el('td', { class: 'num' }, fmtInt(o.win)), el('td', { class: 'num' }, fmtInt(o.loss)),
      el('td', { class: 'num' }, o.longest_win ? o.longest_win.distance : '—'),
      el('td', { class: 'fen' }, o.longest_win ? el('a', { href: '/?fen=' + fenParam(o.longest_win.fen), 'data-nav': '', class: 'longest' }, o.longest_win.fen) : '—')));
    out.push(el('div', { class: 'scroll' }, el('table', { class: 'data', id: 'longest' }, el('thead', {}, el('tr', {},
      ['stats.order', 'stats.win', 'stats.loss', 'stats.longestplies', 'stats.example'].map((k) => el('th', {}, t(k))))), el('tbody', {}, rowsOf))));
    if (s.orders.length > 1) out.push(el('p', { class: 'small' }, t('stats.ordersnote')));
    // Histograms, one per side and order; beyond the first two orders folded.
    out.push(el('h2', {}, t('stats.hists')));
    const charts = el('div', { class: 'charts' });
    for (const k of ['w', 'b']) {
      const orders = [...new Set(s.sides[k].histogram.map((e) => e.order))].sort((a, b) => a - b);
      for (const o of orders) {
        charts.append(el('details', { class: 'chart-box', open: o < 2, 'data-order': o },
          el('summary', {}, t('stats.hist', { side: t('side.' + k), o })), histogram(s.sides[k].histogram, o)));
      }
    }
    out.push(charts);
    out.push(el('p', { class: 'small' }, t('stats.histnote')));
    for (const k of ['w', 'b']) {
      const pr = s.sides[k].pawn_ranks;
      if (!pr) continue;
      out.push(el('h2', {}, t('stats.pawns', { side: t('side.' + k) })));
      const body = el('tbody', {}, pr.map((p) => el('tr', {},
        el('td', {}, pawnRank(p.red)), el('td', {}, pawnRank(p.black)),
        el('td', {}, fmtInt(p.legal)), el('td', {}, pct(p.win, p.legal) + '%'), el('td', {}, pct(p.draw, p.legal) + '%'), el('td', {}, pct(p.loss, p.legal) + '%'))));
      out.push(el('div', { class: 'scroll' }, el('table', { class: 'data pawns' }, el('thead', {}, el('tr', {},
        ['stats.redpawn', 'stats.blackpawn', 'stats.legal', 'stats.win', 'stats.draw', 'stats.loss'].map((x) => el('th', {}, t(x))))), body)));
    }
    if (s.sides.w.pawn_ranks || s.sides.b.pawn_ranks) out.push(el('p', { class: 'small' }, t('stats.pawnnote')));
    root.replaceChildren(...out);
  })();
  return {};
}

/** A partial table's report (formats/api.md, /api/partial): resolved shares overall and by
 * each side's most advanced pawn, and the check against the complete table where there is one. */
function partialReport(p) {
  const out = [el('h1', { id: 'stats-title' }, t('partial.title', { m: p.material })),
    el('p', { class: 'notice', id: 'partial-about' }, t('partial.about', { without: p.without.join(', ') }))];
  const pawns = !!p.by_pawns;
  const row = (a, b, x) => el('tr', {}, pawns ? el('td', {}, a) : null, pawns ? el('td', {}, b) : null, el('td', { class: 'num' }, fmtInt(x.positions)),
    el('td', { class: 'num' }, fmtInt(x.exact)), el('td', { class: 'num' }, fmtInt(x.one_sided)),
    el('td', { class: 'num' }, fmtInt(x.unknown)), el('td', { class: 'num' }, (100 * x.resolved).toFixed(2) + '%'));
  const rows = [row(t('partial.all'), t('partial.all'), p.all)];
  for (const s of p.by_pawns || []) rows.push(row(pawnRank(s.red), pawnRank(s.black), s));
  out.push(el('div', { class: 'scroll' }, el('table', { class: 'data', id: 'partial-shares' }, el('thead', {}, el('tr', {},
    [...(pawns ? ['stats.redpawn', 'stats.blackpawn'] : []), 'partial.positions', 'partial.exact', 'partial.onesided', 'partial.unknown', 'partial.resolved']
      .map((k) => el('th', {}, t(k))))), el('tbody', {}, rows))));
  const c = p.against_full;
  if (c) out.push(el('p', { class: 'small', id: 'partial-checked' }, t('partial.checked', { n: fmtInt(c.positions), out: fmtInt(c.outside), diff: fmtInt(c.exact_differs) })));
  return out;
}

// ---------------------------------------------------------------- help page

const HELP = {
  en: [
    ['h1', 'How to read the tables'],
    ['p', 'Each position shows the side to move, its value and every legal move with the value of the position it leads to. The tables are built by retrograde analysis of every position of an ending (Fang, Hsu & Hsu; the query system of Jih-tung Pai).'],
    ['h2', 'Value', 'value'],
    ['p', 'The value counts plies (half-moves) to the next conversion — a capture, or mate — when both sides play best. Odd: the side to move wins; even: it loses; a draw has no number. Stalemate loses in Xiangqi. The winner picks the move to the smallest even value; the loser the largest odd one. Best moves are marked *, captures c, checks +.'],
    ['h2', 'Order', 'order'],
    ['p', 'Under the Asian rules a side may not check or chase forever: when a position repeats, the side that gave check with every move since loses (if both did, it is a draw); otherwise a side that chased one and the same piece with every move loses. So a side can also win by forcing its opponent into positions where every move either loses or keeps checking or chasing. Such a position, and every position leading to it, has an order above 0: the value then counts plies until the losing side has nothing left but the forbidden check or chase, and the pieces that will give it are ringed on the board. Every way out leads to a position of a lower order, where the rules may decide again; lower orders are better for the winner. Endings without rooks, horses, cannons or pawns have order 0 only (one side armed is not enough: in KCPKAAB the defender\'s elephant can be forced to chase); tables built under the Asian rules have higher orders where endless play decides the result (KRKN has orders 0 and 1, KRCKR 0 to 20). Suggested moves, Play to conversion and play mode keep the game\'s history and stop at a repeated position with the rules\' verdict.'],
    ['h2', 'Distance to mate (DTM)', 'dtm'],
    ['p', 'Where the table directory also holds distance-to-mate tables (xqtb build --metric both), each position also shows its distance to mate: plies to checkmate or stalemate when the winner mates as fast as it can and the loser holds out longest, counted through captures (a capture does not restart the count). Beside each move\'s (order-value) is M and its distance to mate. The switch above the moves (DTC / DTM) chooses the metric that orders them and marks the best moves *, and the one the suggested move, play mode and the line played out follow: "Play to conversion" under DTC, "Play to mate" under DTM. The choice is remembered. Win, draw or loss is the same under both metrics.'],
    ['p', 'Under the Asian rules some wins end not in mate but in a ruling on perpetual check or chase. Their distance to mate has a level, written like (1) or (0, 2): the last nonzero number is the phase of the Asian rules (the order) the ruling falls in, and its place the number of captures before it: (1) in this table, (0, 2) in the table reached after one capture. The distance then counts plies until the losing side can only check or chase forever. For the winner a lower level is better, then a shorter distance; for the loser a higher level, then a longer one. A move that captures shows the smaller table\'s own level: (1) there is (0, 1) here.'],
    ['h2', 'Notation'],
    ['p', 'UCCI names the points: files a–i from Red\'s left, ranks 0–9 from Red\'s side (h2e2). WXF and Chinese notation name the piece, its file counted from the mover\'s right (Red 一–九, Black １–９), the direction (+ 進 advance, − 退 retreat, = 平 traverse) and the file reached or the points moved: C2=5 炮二平五. Two pieces of a kind on one file are front + 前 and rear − 後; three pawns add the middle one (中兵, P3); four or five are numbered from the front (一兵 二兵 …, WXF ++ P+ P3 P− −−); pawns doubled on two files use the file instead of the piece (前三平四, 3+=4).'],
    ['h2', 'Positions'],
    ['p', 'A position is a FEN (Red in capitals, side w or b; _ may replace spaces in a URL) or the classic query system\'s position string: rows from Black\'s back rank, digits for empty points, k b e r n c p, Black in capitals, a trailing 0 for Black to move and : to view from Black\'s side, e.g. 4K44B49994n495k399. Every position has its own address: /?fen=…'],
    ['h2', 'Play mode'],
    ['p', 'Play mode hides all values: you move one side, the tables answer with a best move. "Look up answers" shows the values of the current position.'],
    ['h2', 'Keys'],
    ['p', '← and → go back and forward, space plays the suggested move, f flips the board.'],
    ['h2', 'Programs'],
    ['p', 'The same answers are JSON at /api/probe?fen=…, /api/mainline?fen=…, /api/tables and /api/stats/MATERIAL (formats/api.md), and from the command line: xqtb probe --json.'],
  ],
  zh: [
    ['h1', '如何閱讀殘局庫'],
    ['p', '每個局面顯示走子方、局面的值，以及每一個合法著法走後局面的值。殘局庫以回溯分析算出一個殘局的所有局面（方浩任、許聞廉、許舜欽；白日東的殘局庫查詢系統）。'],
    ['h2', 'Value（值）', 'value'],
    ['p', '值是雙方都走最佳著法時，到下一次轉換（吃子或將死）的步數（半回合）。奇數：走子方勝；偶數：走子方負；和局無數字。象棋中困斃為負。勝方選擇走到最小偶數的著法，負方選擇最大奇數。最佳著法標 *，吃子標 c，將軍標 +。'],
    ['h2', 'Order（階）', 'order'],
    ['p', '依亞洲規則，不可長將或長捉：局面重複時，自上次出現以來每著都將軍的一方判負（雙方都如此則判和）；否則每著都捉同一個子的一方判負。因此一方也可以迫使對方進入「每一著不是輸就是繼續將軍或捉子」的局面而取勝。這種局面及所有導向它的局面的階大於 0：值算到負方只剩被禁止的長將或長捉為止，棋盤上圈出將要將軍或捉子的棋子。負方的每一種變著都進入較低階的局面，在那裡規則可能再次裁決；對勝方而言階越低越好。雙方都沒有車、馬、炮、兵的殘局，階都是 0（只有一方有攻擊子還不夠：在炮兵對士士象中，守方的象可能被迫長捉）；依亞洲規則建造的殘局庫，在長將長捉決定勝負之處有更高的階（KRKN 有 0、1 兩階，KRCKR 有 0 至 20 階）。電腦代走、走到轉換與練習攻防都記住對局經過，局面重複時停下並依規則裁決。'],
    ['h2', '距將死步數（DTM）', 'dtm'],
    ['p', '若殘局庫目錄中也有距將死殘局庫（xqtb build --metric both），每個局面也顯示距將死步數：勝方儘快將死、負方儘量拖延時，到將死或困斃的步數，吃子不重新計數。每個著法的（階-值）旁以 M 標出其距將死步數。著法列表上方的切換（DTC / DTM）決定以哪個標準排序著法、標出最佳著法 *，以及電腦代走、練習攻防與自動走子所依的標準：DTC 為「走到轉換」，DTM 為「走到將死」。選擇會被記住。兩種標準的勝、和、負相同。'],
    ['p', '依亞洲規則，有些勝局不是以將死結束，而是以長將、長捉的裁決結束。它們的距將死步數帶有層級，寫作 (1) 或 (0, 2)：最後一個非零數字是裁決所在的亞洲規則階，它的位置是之前的吃子次數：(1) 在本殘局庫，(0, 2) 在吃一子後到達的殘局庫。步數則算到負方只能長將或長捉的局面。對勝方而言層級越低越好，其次步數越少；對負方則層級越高越好，其次步數越多。吃子的著法顯示較小殘局庫本身的層級：那裡的 (1) 在這裡是 (0, 1)。'],
    ['h2', '記譜'],
    ['p', 'UCCI 以點命名：紅方左起 a–i 線，紅方起 0–9 橫線（h2e2）。WXF 與中文記譜寫棋子、自走子方右起的縱線（紅 一–九，黑 １–９）、方向（+ 進、− 退、= 平）以及到達的縱線或走的步數：C2=5 炮二平五。同一縱線上兩個同種棋子分前（+）後（−）；三個兵另有中兵（P3）；四、五個兵由前數起（一兵 二兵 …，WXF ++ P+ P3 P− −−）；兩條縱線都有疊兵時以縱線代替兵字（前三平四，3+=4）。'],
    ['h2', '局面'],
    ['p', '局面可用 FEN（紅方大寫，走子方 w 或 b；網址中可用 _ 代替空格）或經典查詢系統的局面字串：自黑方底線起逐行，數字代表空點，k b e r n c p，黑方大寫，結尾 0 表示輪黑走，: 表示從黑方看，例如 4K44B49994n495k399。每個局面都有自己的網址：/?fen=…'],
    ['h2', '練習攻防'],
    ['p', '練習模式不顯示任何值：你走一方，殘局庫以最佳著法應對。「查閱解答」顯示當前局面的值。'],
    ['h2', '按鍵'],
    ['p', '← 和 → 上一步、下一步，空白鍵 電腦代走，f 翻轉棋盤。'],
    ['h2', '程式介面'],
    ['p', '同樣的答案以 JSON 提供：/api/probe?fen=…、/api/mainline?fen=…、/api/tables、/api/stats/子力（formats/api.md），命令列：xqtb probe --json。'],
  ],
};

function helpPage() {
  setTitle(t('nav.help'));
  const root = app();
  root.replaceChildren(el('div', { class: 'help' }, HELP[prefs.lang].map(([tag, text, id]) => el(tag, { id }, text))));
  if (location.hash) { const e = document.getElementById(location.hash.slice(1)); if (e) e.scrollIntoView(); }
  return {};
}

// ---------------------------------------------------------------- preferences and start

function applyText() {
  document.documentElement.lang = prefs.lang === 'zh' ? 'zh-Hant' : 'en';
  document.querySelectorAll('[data-i18n]').forEach((e) => { e.textContent = t(e.dataset.i18n); });
  document.querySelectorAll('[data-i18n-title]').forEach((e) => { e.title = t(e.dataset.i18nTitle); });
  document.getElementById('lang').textContent = prefs.lang === 'zh' ? 'English' : '中文';
}

function init() {
  const nota = document.getElementById('notation');
  nota.value = prefs.notation;
  nota.onchange = () => { prefs.notation = nota.value; local.set('xqtb.notation', nota.value); route(); };
  const pieces = document.getElementById('pieces');
  pieces.value = prefs.pieces;
  pieces.onchange = () => { prefs.pieces = pieces.value; local.set('xqtb.pieces', pieces.value); route(); };
  document.getElementById('lang').onclick = () => {
    prefs.lang = prefs.lang === 'zh' ? 'en' : 'zh';
    local.set('xqtb.lang', prefs.lang);
    applyText();
    route();
  };
  document.getElementById('theme').onclick = () => {
    const dark = document.documentElement.dataset.theme === 'dark' ||
      (!document.documentElement.dataset.theme && matchMedia('(prefers-color-scheme: dark)').matches);
    const next = dark ? 'light' : 'dark';
    document.documentElement.dataset.theme = next;
    local.set('xqtb.theme', next);
  };
  applyText();
  route();
}
init();
