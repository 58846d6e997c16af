#!/usr/bin/env python3
"""Measurements on the Snapcast test bed (scripts/private-snapcast.sh; run them through
scripts/snapcast-bed.sh). Each plays test tones into the bed's sinks with pacat and records
ears.monitor once (aux0 = what went into snapcast_feed, aux1.. = each client), so one recording
shows what was sent and what every client played (the last channel: what went into
snapcast_other). Needs python3 with numpy, pacat/parec/pactl.

  onsets [--bursts 10]   end-to-end delay (snapcast_feed -> client) and the spread between the
                         first two clients' first audible sample, per burst and median
  volume [--client ward-a]  how long after a Client.SetVolume the client's output changes
  switch [--client ward-b]  what the client plays around a Group.SetStream to "feed" and back
  safeguard [--mode normal|critical] [--naive]
                         a prototype of the timed safeguard (docs/research/snapcast.md): music
                         ducked at the source, clients changed one end-to-end delay later,
                         restored after the announcement's last sample has been played; reports
                         whether any client's music was ever louder and whether the tail was heard
"""
import argparse, json, os, socket, subprocess, sys, threading, time
import numpy as np
import warnings
warnings.simplefilter("ignore", RuntimeWarning)   # nan medians when a client heard nothing

R = 48000


class Rpc:
    """Snapserver's JSON-RPC over TCP: one request at a time, notifications skipped."""
    def __init__(self):
        self.s = socket.create_connection(('127.0.0.1', int(os.environ['HERALD_TEST_SNAP_CONTROL_PORT'])))
        self.id = 0
        self.buf = b''

    def __call__(self, method, params=None):
        self.id += 1
        req = {"id": self.id, "jsonrpc": "2.0", "method": method}
        if params is not None:
            req["params"] = params
        self.s.sendall((json.dumps(req) + '\r\n').encode())
        while True:
            while b'\n' in self.buf:
                line, self.buf = self.buf.split(b'\n', 1)
                d = json.loads(line)
                if d.get('id') == self.id:
                    return d
            self.buf += self.s.recv(1 << 20)

    def volume(self, client, percent, muted):
        return self('Client.SetVolume', {"id": client, "volume": {"percent": percent, "muted": muted}})

    def group_of(self, client):
        st = self('Server.GetStatus')['result']['server']
        return [g['id'] for g in st['groups'] if any(c['id'] == client for c in g['clients'])][0]


def clients():
    return os.environ.get('HERALD_TEST_SNAP_CLIENTS', 'ward-a ward-b').split()


def channel(client):
    return 1 + clients().index(client)


def tone(freq, seconds, amp=0.5, fade=0.0):
    t = np.arange(int(seconds * R)) / R
    env = np.minimum(1, np.minimum(t, t[-1] - t) / fade) if fade else 1
    return (amp * env * np.sin(2 * np.pi * freq * t) * 32767).astype(np.int16)


def stereo(mono):
    return np.repeat(mono, 2).tobytes()


class Recording:
    """parec of ears.monitor, aux0..auxN+1, into a file; .t0 is the wall clock at its start (only
    roughly: parec may start late; align on markers played into snapcast_other instead)."""
    def __init__(self, path='/tmp/snapcast-probe.raw'):
        self.path, self.n = path, len(clients()) + 2
        self.p = subprocess.Popen(['parec', '-d', 'ears.monitor', '--raw', '--format=s16le', '--rate=48000',
                                   f'--channels={self.n}', '--channel-map=' + ','.join(f'aux{i}' for i in range(self.n)),
                                   '--latency-msec=5', path])
        self.t0 = time.time()

    def stop(self):
        self.p.terminate()
        self.p.wait()
        return np.fromfile(self.path, np.int16).reshape(-1, self.n).astype(float) / 32768


def play(sink, data, name='probe', wait=True):
    """pacat into SINK; with wait, returns once pacat has drained (the last sample is in the sink)."""
    p = subprocess.Popen(['pacat', '-d', sink, '--raw', '--format=s16le', '--rate=48000', '--channels=2',
                          '--latency-msec=20', f'--client-name={name}'], stdin=subprocess.PIPE)

    def write():
        try:
            p.stdin.write(data)
            p.stdin.close()
        except BrokenPipeError:
            pass
    if wait:
        write()
        p.wait()
    else:
        threading.Thread(target=write, daemon=True).start()
    return p


def levels(x, block=48):
    """Peak per block (1 ms at 48 samples)."""
    n = len(x) // block
    return np.abs(x[: n * block].reshape(n, block, -1)).max(axis=1)


def onsets(a):
    gap = max(a.gap, a.len + 1.6)   # more than the end-to-end delay, so each burst is matched with its own
    one = np.concatenate([tone(1000, a.len), np.zeros(int((gap - a.len) * R), np.int16)])
    rec = Recording()
    time.sleep(0.3)
    play('snapcast_feed', stereo(np.concatenate([np.zeros(int(0.3 * R), np.int16)] + [one] * a.bursts)))
    time.sleep(1.5)
    x = rec.stop()
    starts = []
    for c in range(x.shape[1]):
        loud = np.flatnonzero(np.abs(x[:, c]) > 0.02)
        starts.append([i for k, i in enumerate(loud) if k == 0 or i - loud[k - 1] > 0.2 * R])
    rows = []
    for k, s0 in enumerate(starts[0]):
        row = []
        for c in range(1, x.shape[1] - 1):
            later = [i for i in starts[c] if s0 < i < s0 + gap * R]
            row.append((later[0] - s0) / R * 1000 if later else np.nan)
        rows.append(row)
        print(f'burst {k}: end-to-end ms ' + ' '.join(f'{v:8.2f}' for v in row) +
              (f'   spread {row[1] - row[0]:+.3f} ms' if len(row) > 1 else ''))
    rows = np.array(rows)
    print('median end-to-end ms:', ' '.join(f'{v:.2f}' for v in np.nanmedian(rows, axis=0)))
    if rows.shape[1] > 1:
        sp = rows[:, 1] - rows[:, 0]
        print(f'spread (2nd - 1st client) ms: median {np.nanmedian(sp):+.3f}, max |.| {np.nanmax(np.abs(sp)):.3f}')
        wide = np.nanmax(rows, axis=1) - np.nanmin(rows, axis=1)
        print(f'spread (latest - earliest of all clients) ms: median {np.nanmedian(wide):.3f}, max {np.nanmax(wide):.3f}')


def marker():
    """A 5 ms 3 kHz blip into snapcast_other (heard on the last channel of ears, no client is on
    "other" here); returns once pacat has drained it, so an RPC sent next is sent at its end."""
    play('snapcast_other', stereo(tone(3000, 0.005, amp=0.8)), name='marker')


def marker_ends(x):
    loud = np.flatnonzero(np.abs(x[:, -1]) > 0.1)
    return [i for k, i in enumerate(loud) if k + 1 == len(loud) or loud[k + 1] - i > 0.2 * R]


def volume(a):
    rpc, ch = Rpc(), channel(a.client)
    steps = [(50, False), (100, False), (100, True), (100, False), (25, False), (100, False)]
    rpc.volume(a.client, 100, False)
    for c in clients():
        rpc('Group.SetStream', {"id": rpc.group_of(c), "stream_id": "feed"})
    rec = Recording()
    music = play('snapcast_feed', stereo(tone(1000, 4 + 1.5 * len(steps))), wait=False)
    time.sleep(3)
    for p, m in steps:
        marker()
        rpc.volume(a.client, p, m)
        time.sleep(1.5)
    music.wait()
    x = rec.stop()
    lv = levels(x)[:, ch]
    ends = marker_ends(x)
    if len(ends) != len(steps):
        sys.exit(f'found {len(ends)} markers for {len(steps)} steps')
    for end, (p, m) in zip(ends, steps):
        i0 = end // 48
        before = np.median(lv[i0 - 200:i0 - 50])
        j = next((j for j in range(i0, min(i0 + 1500, len(lv))) if abs(lv[j] - before) > 0.03 * max(before, 0.01)), None)
        after = np.median(lv[i0 + 1300:i0 + 1450])
        print(f'{p:3d}% muted={m!s:5}: peak {before:.3f} -> {after:.3f}, ' +
              (f'changes {j - i0} ms after the RPC' if j is not None else 'no change seen'))


def label(block):
    if np.abs(block).max() < 0.01:
        return 'silence'
    f = np.argmax(np.abs(np.fft.rfft(block * np.hanning(len(block))))) * R / len(block)
    return f'{round(f / 50) * 50:.0f} Hz'


def switch(a):
    rpc, ch = Rpc(), channel(a.client)
    group = rpc.group_of(a.client)
    rpc('Group.SetStream', {"id": group, "stream_id": "other"})
    rec = Recording()
    ps = [play('snapcast_feed', stereo(tone(1000, 12)), wait=False),
          play('snapcast_other', stereo(tone(500, 12, amp=0.3)), wait=False)]
    time.sleep(3)
    sids = ('feed', 'other')
    for sid in sids:
        marker()   # 0.8 over the 0.3 of "other" on the last channel
        rpc('Group.SetStream', {"id": group, "stream_id": sid})
        time.sleep(3.5)
    rpc('Group.SetStream', {"id": group, "stream_id": "feed"})
    for p in ps:
        p.wait()
    x = rec.stop()
    loud = np.flatnonzero(np.abs(x[:, -1]) > 0.5)
    ends = [i for k, i in enumerate(loud) if k + 1 == len(loud) or loud[k + 1] - i > 0.2 * R]
    if len(ends) != len(sids):
        sys.exit(f'found {len(ends)} markers for {len(sids)} switches')
    for i0, sid in zip(ends, sids):
        seq = []
        for k in range(-30, 250):
            lb = label(x[i0 + k * 480: i0 + (k + 1) * 480, ch])
            if not seq or seq[-1][1] != lb:
                seq.append((k * 10, lb))
        print(f'Group.SetStream {sid}: {a.client} plays, from ms after the RPC: ' + ', '.join(f'{t}: {w}' for t, w in seq))


def safeguard(a):
    """Music 1 kHz; announcement 2 kHz with 10 ms fades; see the module's docstring."""
    rpc = Rpc()
    quiet, muted = clients()[0], clients()[1]
    for c in (quiet, muted):
        rpc('Group.SetStream', {"id": rpc.group_of(c), "stream_id": "feed"})
    rpc.volume(quiet, 50, False)
    rpc.volume(muted, 100, a.mode == 'critical')
    rec = Recording()
    music = play('snapcast_feed', stereo(tone(1000, 30)), name='music', wait=False)
    time.sleep(2.5)
    idx = [i['index'] for i in json.loads(subprocess.check_output(['pactl', '-f', 'json', 'list', 'sink-inputs']))
           if i['properties'].get('application.name') == 'music'][0]
    events = []

    def mark(what):
        events.append((time.time() - rec.t0, what))

    def change():
        if a.mode == 'critical':
            rpc.volume(muted, 100, False)
        else:
            rpc.volume(quiet, 100, False)
        mark('client ' + ('unmuted' if a.mode == 'critical' else 'raised'))

    def restore():
        if a.mode == 'critical':
            rpc.volume(muted, 100, True)
        else:
            rpc.volume(quiet, 50, False)
        mark('client restored')

    def unduck():
        subprocess.run(['pactl', 'set-sink-input-mute', str(idx), '0'])
        subprocess.run(['pactl', 'set-sink-input-volume', str(idx), '100%'])
        mark('source unducked')
    # The timeline of docs/research/snapcast.md: B the server's buffer, J the bound on the path's
    # extra delay, A the bound on a client's apply delay. A sample written at t is heard at
    # t + B + j (0 <= j <= J); a volume change sent at r acts on what is heard from r + a on (a <= A).
    B, J, A = a.buffer, a.J, a.A
    t0 = time.time()
    mark('source ducked' + (' (muted)' if a.mode == 'critical' else ' to 30 % (-31 dB)'))
    if a.mode == 'critical':
        subprocess.run(['pactl', 'set-sink-input-mute', str(idx), '1'])
    else:
        subprocess.run(['pactl', 'set-sink-input-volume', str(idx), '30%'])
    if a.naive:
        change()
        write_at = t0 + B + J
    else:
        # a raise waits until the ducked music is heard; an unmute too (with send_to_muted=false the
        # client then gets only what is sent from now on, so the announcement cannot start before it)
        write_at = t0 + J + A if a.mode == 'normal' else t0 + B + J + 0.05
        threading.Timer(max(0, t0 + B + J - time.time()), change).start()
    time.sleep(max(0, write_at - time.time()))
    mark('announcement written from')
    play('snapcast_feed', stereo(tone(2000, 1.5, fade=0.01)), name='announcement')
    end = time.time()
    mark('announcement written (drained)')
    if a.naive:
        restore()
        unduck()
    else:
        time.sleep(max(0, end + J + A - time.time()))
        unduck()
        time.sleep(max(0, end + B + J - time.time()))
        restore()
    time.sleep(a.buffer + a.J + 1)
    x = rec.stop()
    music.kill()
    W = 240                                   # 5 ms windows: 1 kHz and 2 kHz fall on bins 5 and 10
    win = np.hanning(W)
    n = len(x) // W
    sp = np.abs(np.fft.rfft(x[: n * W].reshape(n, W, -1) * win[None, :, None], axis=1)) * 2 / win.sum()
    mus, ann, tw = sp[:, 5, :], sp[:, 10, :], np.arange(n) * W / R
    for t, what in events:
        print(f'{t:7.3f} s  {what}')
    sent = np.flatnonzero(ann[:, 0] > 0.25)
    s0, s1 = tw[sent[0]], tw[sent[-1]]
    print(f'sent: announcement {s0:.3f}..{s1:.3f} s ({s1 - s0:.3f} s)')
    pre = (tw > 1.0) & (tw < events[0][0] - 0.1)
    after = tw > events[0][0]
    for c in (quiet, muted):
        ch = channel(c)
        before = np.median(mus[pre, ch])
        louder = tw[(mus[:, ch] > before * 1.02 + 0.005) & after]   # 0.005 FS: the fades leak into 1 kHz
        # 2 kHz above half its peak and above the 1 kHz (a step of the music splatters into 2 kHz)
        heard = np.flatnonzero((ann[:, ch] > 0.5 * ann[:, ch].max()) & (ann[:, ch] > mus[:, ch])) if ann[:, ch].max() > 0.01 else []
        line = f'{c}: music before {before:.4f}, highest after the duck {mus[after, ch].max():.4f}; '
        line += f'LOUDER in {len(louder)} windows ({louder[0]:.3f}..{louder[-1]:.3f} s); ' if len(louder) else 'never louder; '
        if len(heard):
            h0, h1 = tw[heard[0]], tw[heard[-1]]
            line += f'announcement heard {h0:.3f}..{h1:.3f} s ({h1 - h0:.3f} s, {h0 - s0:.3f} s after sent)'
        else:
            line += 'announcement not heard'
        print(line)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest='cmd', required=True)
    p = sub.add_parser('onsets')
    p.add_argument('--bursts', type=int, default=10)
    p.add_argument('--gap', type=float, default=0.0, help='s between bursts (at least len + 1.6)')
    p.add_argument('--len', type=float, default=0.2)
    p = sub.add_parser('volume')
    p.add_argument('--client', default=clients()[0])
    p = sub.add_parser('switch')
    p.add_argument('--client', default=clients()[-1])
    p = sub.add_parser('safeguard')
    p.add_argument('--mode', choices=['normal', 'critical'], default='normal')
    p.add_argument('--naive', action='store_true', help='change the clients with the duck and restore them with the source')
    p.add_argument('--buffer', type=float, default=int(os.environ.get('HERALD_TEST_SNAP_BUFFER', 1000)) / 1000, help='s')
    p.add_argument('--J', type=float, default=0.25, help='bound on the delay beyond the buffer, s')
    p.add_argument('--A', type=float, default=0.15, help="bound on a client's apply delay, s")
    a = ap.parse_args()
    {'onsets': onsets, 'volume': volume, 'switch': switch, 'safeguard': safeguard}[a.cmd](a)


if __name__ == '__main__':
    main()
