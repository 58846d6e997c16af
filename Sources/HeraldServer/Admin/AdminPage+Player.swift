extension AdminPage {
    /// Listening back: a player under each history row whose audio is kept (`row.audio`), in the
    /// browser only (the speaker has Replay). The audio element asks the daemon for byte ranges
    /// as it plays and seeks. With a token, the audio is fetched whole with the token in a header
    /// and played from memory: a token never goes in a URL, and an `<audio>` cannot send headers.
    /// Once loaded, a small waveform is drawn behind the bar, with a mark where the chime ends.
    static let playerScript = #"""

const players = new Map();

function clock(seconds) {
  if (!isFinite(seconds) || seconds < 0) seconds = 0;
  const minutes = Math.floor(seconds / 60), rest = seconds - minutes * 60;
  return minutes + ":" + (rest < 10 ? "0" : "") + rest.toFixed(1);
}

// What stands in the history row for its audio: the player, a note that it was pruned, or nothing.
function audioCell(row) {
  const audio = row.audio;
  if (!audio || audio.state === "none") return null;
  if (audio.state === "gone") {
    // A player that failed says why itself: it stays until the page is reloaded.
    const failed = players.get(row.id);
    if (failed && failed.node.classList.contains("error")) return failed.node;
    players.delete(row.id);
    return el("p", "Audio no longer kept: " + (audio.reason || "pruned"), { class: "audio-gone" });
  }
  // The same player across redraws: one that plays goes on playing.
  const kept = players.get(row.id);
  if (kept && kept.url === audio.url) return kept.node;
  const player = makePlayer(row, audio);
  players.set(row.id, player);
  return player.node;
}

function makePlayer(row, audio) {
  const node = el("div", null, { class: "player", "data-audio-id": row.id });
  const media = el("audio", null, { preload: "none" });
  const play = el("button", "Play", { type: "button", class: "play", "aria-label": "Listen back to: " + row.body });
  const bar = el("span", null, { class: "seek-bar" });
  const wave = el("canvas", null, { class: "wave", width: "300", height: "28", "aria-hidden": "true" });
  bar.append(wave);
  const seek = el("input", null, { type: "range", class: "seek", min: "0", max: "1000", step: "1", value: "0",
                                   "aria-label": "Position in: " + row.body });
  bar.append(seek);
  const known = (audio.duration_milliseconds || 0) / 1000;
  if (audio.chime_end_milliseconds > 0 && known > 0) {
    const mark = el("span", null, { class: "chime-mark", title: "the chime ends here" });
    mark.style.left = (100 * audio.chime_end_milliseconds / 1000 / known) + "%";
    bar.append(mark);
  }
  const time = el("span", "0:00.0 / " + clock(known), { class: "time" });
  const state = el("span", audio.partial ? "(interrupted: what was heard)" : "", { class: "player-state", role: "status" });
  node.append(play, bar, time, state, media);
  let loading = null, ready = false, dragging = false;
  const duration = () => (isFinite(media.duration) && media.duration > 0 ? media.duration : known);
  const show = () => {
    time.textContent = clock(media.currentTime) + " / " + clock(duration());
    if (!dragging && duration() > 0) seek.value = String(Math.round(1000 * media.currentTime / duration()));
  };
  const fail = async () => {
    node.classList.add("error");
    let message = "could not load the audio";
    try { await api("GET", audio.url); } catch (error) { message = error.message; }
    state.textContent = "Error: " + message;
    play.textContent = "Play";
    loading = null;
    ready = false;
  };
  // The first play or seek loads it; later ones find it loaded.
  const load = () => {
    if (loading) return loading;
    state.textContent = "Loading…";
    node.classList.remove("error");
    loading = (async () => {
      if (token()) {
        const response = await fetch(audio.url, { headers: { Authorization: "Bearer " + token() } });
        if (!response.ok) throw new Error("HTTP " + response.status);
        const blob = await response.blob();
        media.src = URL.createObjectURL(blob);
        drawWave(wave, blob.arrayBuffer());
      } else {
        media.src = audio.url;
        drawWave(wave, fetch(audio.url).then((response) => response.ok ? response.arrayBuffer() : Promise.reject()));
      }
      media.load();
      await new Promise((resolve, reject) => {
        media.addEventListener("loadedmetadata", resolve, { once: true });
        media.addEventListener("error", reject, { once: true });
      });
      ready = true;
      state.textContent = "";
    })();
    loading.catch(fail);
    return loading;
  };
  play.addEventListener("click", async () => {
    if (!media.paused) { media.pause(); return; }
    try { await load(); await media.play(); } catch (error) { /* shown by fail */ }
  });
  seek.addEventListener("input", () => {
    dragging = true;
    time.textContent = clock(duration() * Number(seek.value) / 1000) + " / " + clock(duration());
  });
  seek.addEventListener("change", async () => {
    try {
      await load();
      media.currentTime = duration() * Number(seek.value) / 1000;
    } catch (error) { /* shown by fail */ }
    dragging = false;
    show();
  });
  media.addEventListener("timeupdate", show);
  media.addEventListener("durationchange", show);
  media.addEventListener("playing", () => { play.textContent = "Pause"; state.textContent = ""; });
  media.addEventListener("pause", () => { play.textContent = "Play"; });
  media.addEventListener("waiting", () => { state.textContent = "Loading…"; });
  // A failure while loading is the load's; this is one after it (the file pruned meanwhile).
  media.addEventListener("error", () => { if (ready) fail(); });
  return { node, url: audio.url, media };
}

// A small waveform behind the bar, drawn once the audio is loaded: the loudest sample of each
// column. Only a picture: a failure to draw it leaves the bar as it is.
async function drawWave(canvas, bytes) {
  try {
    const decoded = await new OfflineAudioContext(1, 1, 8000).decodeAudioData(await bytes);
    const samples = decoded.getChannelData(0), context = canvas.getContext("2d");
    const columns = canvas.width, middle = canvas.height / 2, step = Math.max(1, Math.floor(samples.length / columns));
    context.clearRect(0, 0, canvas.width, canvas.height);
    context.fillStyle = "#9db4d6";
    for (let column = 0; column < columns; column++) {
      let peak = 0;
      for (let index = column * step; index < Math.min(samples.length, (column + 1) * step); index++) peak = Math.max(peak, Math.abs(samples[index]));
      const height = Math.max(1, peak * canvas.height);
      context.fillRect(column, middle - height / 2, 1, height);
    }
    canvas.dataset.drawn = "true";
  } catch (error) { /* no picture */ }
}
"""#

    static let playerStyle = #"""
.player { display: flex; flex-wrap: wrap; align-items: center; gap: .3rem .5rem; margin-top: .3rem; }
.player .play { padding: .2rem .6rem; min-width: 4.2rem; }
.seek-bar { position: relative; flex: 1 1 8rem; min-width: 6rem; display: flex; align-items: center; }
.seek-bar .seek { position: relative; width: 100%; margin: 0; padding: 0; border: none; background: transparent; }
.seek-bar .wave { position: absolute; left: 0; top: 50%; width: 100%; height: 1.6rem; transform: translateY(-50%); pointer-events: none; }
.chime-mark { position: absolute; top: -2px; bottom: -2px; width: 2px; background: #e3a21a; pointer-events: none; }
.player .time { font-variant-numeric: tabular-nums; font-size: .85rem; }
.player.error .player-state, .audio-gone { color: #b00020; }
.audio-gone { margin: .3rem 0 0; font-size: .85rem; }
"""#
}
