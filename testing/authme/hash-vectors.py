#!/usr/bin/python3
"""Test vectors for the site's AuthMe hash library (apps/server/src/lib/authme), made without it.

Each of AuthMe's hash formats (AuthMeReloaded, fr.xephi.authme.security.crypts) is written here a
second time in Python from AuthMe's documented formats, on other libraries: hashlib and hmac for
the digests and PBKDF2, pyca's bcrypt and PHP's crypt() for bcrypt, argon2-cffi (the reference C
code) for Argon2i, passlib for phpass and Django's PBKDF2. The site's tests read the JSON this
writes and never need Python or PHP.

    apt-get install -y python3-bcrypt python3-argon2 python3-passlib php-cli
    /usr/bin/python3 testing/authme/hash-vectors.py > testing/authme/hash-vectors.json
    npx prettier --write testing/authme/hash-vectors.json

Every salt is fixed, so the output is the same on every run.

    /usr/bin/python3 testing/authme/hash-vectors.py --check written.json

checks hashes the site wrote (a JSON list of {algorithm, password, username, hash, salt}, e.g.
from hashForAuthMe with random salts) with these implementations and prints one line per hash.

Vectors: {algorithm, password, username, hash, salt, expect, note}; expect is true (the password
matches), false (a whole row, a wrong password) or "malformed" (no password can match the row).
Writes: {fn, password, salt, ..., hash}: a library function given this salt must return this hash.
"""

import base64
import hashlib
import hmac
import json
import subprocess
import sys

import bcrypt
from argon2.low_level import Type, hash_secret
from passlib.hash import django_pbkdf2_sha256, phpass

PASSWORDS = [
    'password',
    'PassWord1',
    '&^%te$t?Pw@_',
    'âË_3(íù*',
    'Пароль_Игрока-2024',
    'ключ😀emoji',
    ' spaces inside and around ',
]
WRONG = 'password '
USERNAME = 'Steve_Builder'


def utf8(text):
    # Java's encoder writes '?' for a lone surrogate, as Python's 'replace' does.
    return text.encode('utf-8', 'replace')


def ascii_(text):
    return text.encode('ascii', 'replace')


def latin1(text):
    return text.encode('latin-1', 'replace')


def md5(text):
    return hashlib.md5(utf8(text)).hexdigest()


def sha1(text):
    return hashlib.sha1(utf8(text)).hexdigest()


def sha256(text):
    return hashlib.sha256(utf8(text)).hexdigest()


def sha512(text):
    return hashlib.sha512(utf8(text)).hexdigest()


def java_length(text):
    """String.length(): UTF-16 code units, so an emoji counts twice."""
    return len(text.encode('utf-16-le', 'surrogatepass')) // 2


def crazycrypt1(password, name):
    text = 'ÜÄaeut//&/=I ' + password + '7421€547' + name + '__+IÄIH§%NK ' + password
    return hashlib.sha512(utf8(text)[: java_length(text)]).hexdigest()


def royalauth(password):
    for _ in range(25):
        password = sha512(password)
    return password


# Algorithms whose salt AuthMe keeps in its own column: name -> (hash(password, salt, name), salt).
SEPARATE = {
    'SALTEDSHA512': (lambda p, s, n: sha512(p + s), '3f1c9a0b7d2e4f6a8b0c1d2e3f4a5b6c'),
    'SALTEDSHA256': (lambda p, s, n: sha256(p + s), '0a1b2c3d4e5f60718293a4b5c6d7e8f9'),
    'DOUBLE_SHA512': (lambda p, s, n: sha512(sha512(p) + s), 'ffeeddccbbaa99887766554433221100'),
    'SALTED2MD5': (lambda p, s, n: md5(md5(p) + s), '9a8b7c6d'),
    'IPB3': (lambda p, s, n: md5(md5(s) + md5(p)), 'a1b2c'),
    'MYBB': (lambda p, s, n: md5(md5(s) + md5(p)), 'Xy7Qm2Zk'),
    'WBB3': (lambda p, s, n: sha1(s + sha1(s + sha1(p))), '0123456789abcdef0123456789abcdef01234567'),
    'PHPFUSION': (
        lambda p, s, n: hmac.new(utf8(sha1(s)), ascii_(p), hashlib.sha256).hexdigest(),
        '5e6f7a8b9c0d',
    ),
    'SMF': (lambda p, s, n: sha1(n.lower() + p), 'q7z1'),
}

UNSALTED = {
    'MD5': md5,
    'SHA1': sha1,
    'SHA512': sha512,
    'DOUBLEMD5': lambda p: md5(md5(p)),
    'CMW': lambda p: md5(sha1(p)),
    'ROYALAUTH': royalauth,
}

BCRYPT_B64 = str.maketrans(
    'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/',
    './ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789',
)


def bcrypt_salt(raw16):
    return base64.b64encode(raw16).decode().translate(BCRYPT_B64)[:22]


def pybcrypt(password_bytes, version, cost, raw16):
    setting = '$%s$%02d$%s' % (version, cost, bcrypt_salt(raw16))
    return bcrypt.hashpw(password_bytes, setting.encode()).decode()


def php_crypt(password, setting):
    code = 'echo crypt($argv[1], $argv[2]);'
    return subprocess.run(['php', '-r', code, password, setting], check=True, capture_output=True).stdout.decode()


def sha256_authme(password, salt):
    return '$SHA$%s$%s' % (salt, sha256(sha256(password) + salt))


def pbkdf2_authme(password, salt, rounds, upper=True):
    key = hashlib.pbkdf2_hmac('sha256', utf8(password), utf8(salt), rounds, 64).hex()
    return 'pbkdf2_sha256$%d$%s$%s' % (rounds, salt, key.upper() if upper else key)


def pbkdf2_base64(password, raw_salt, rounds):
    key = hashlib.pbkdf2_hmac('sha256', utf8(password), raw_salt, rounds, 32)
    return 'pbkdf2$%d$%s$%s' % (rounds, base64.b64encode(raw_salt).decode(), base64.b64encode(key).decode())


def django(password, salt, rounds):
    # passlib hashes the bytes it is given; AuthMe hands PBKDF2 the password's ASCII ('?' for the rest).
    return django_pbkdf2_sha256.using(salt=salt, rounds=rounds).hash(ascii_(password))


def argon2i(password, raw_salt, m=65536, t=2, p=1, length=32):
    return hash_secret(utf8(password), raw_salt, time_cost=t, memory_cost=m, parallelism=p, hash_len=length, type=Type.I).decode()


def phpass_hash(password_bytes, salt8, log2, ident):
    return phpass.using(salt=salt8, rounds=log2, ident=ident).hash(password_bytes)


def build():
    vectors = []

    def add(algorithm, password, hash_, salt=None, expect=True, note='', username=USERNAME):
        vectors.append(
            {'algorithm': algorithm, 'password': password, 'username': username, 'hash': hash_, 'salt': salt, 'expect': expect, 'note': note}
        )

    def pair(algorithm, password, hash_, salt=None, note='', username=USERNAME):
        add(algorithm, password, hash_, salt, True, note, username)
        add(algorithm, WRONG if password != WRONG else 'x', hash_, salt, False, note, username)

    salts16 = ['11aa0706173d7272', '3c72a18a29b08d40', '584cea1cfab90030', '0b503d90dd9949d4', 'deadbeef00c0ffee', '0000000000000000', 'abcdef0123456789']
    for i, password in enumerate(PASSWORDS):
        salt = salts16[i]
        pair('SHA256', password, sha256_authme(password, salt))
        for name, fn in UNSALTED.items():
            pair(name, password, fn(password))
        for name, (fn, s) in SEPARATE.items():
            pair(name, password, fn(password, s, USERNAME), s)
        pair('JOOMLA', password, md5(password + salt + salt) + ':' + salt + salt, note='32-digit salt')
        pair('MD5VB', password, '$MD5vb$%s$%s' % (salt, md5(md5(password) + salt)))
        pair('CRAZYCRYPT1', password, crazycrypt1(password, USERNAME.lower()), note='name lower-cased by AuthMe')
        pair('PBKDF2', password, pbkdf2_authme(password, salt, 10000))
        pair('PBKDF2DJANGO', password, django(password, salt[:12], 24000))
        raw = bytes.fromhex(salt) * 2
        pair('PBKDF2BASE64', password, pbkdf2_base64(password, raw, 10000))
        # AuthMe's own 64 MiB for two passwords; 1 MiB for the rest keeps the site's tests fast.
        pair('ARGON2', password, argon2i(password, raw) if i in (0, 4) else argon2i(password, raw, m=1024))
        for algorithm in ('BCRYPT', 'BCRYPT2Y', 'XFBCRYPT', 'PHPBB'):
            pair(algorithm, password, pybcrypt(utf8(password), '2a', 4, raw), note='pyca bcrypt, $2a$')
        pair('BCRYPT', password, php_crypt(password, '$2y$05$' + bcrypt_salt(raw)), note='PHP crypt, $2y$')
        pair('BCRYPT2Y', password, pybcrypt(utf8(password), '2b', 4, raw), note='pyca bcrypt, $2b$')
        pair('IPB4', password, pybcrypt(utf8(password), '2a', 4, raw), bcrypt_salt(raw), note='salt column holds the bcrypt salt')
        setting = '$2a$08$' + bcrypt_salt(raw)
        pair('WBB4', password, bcrypt.hashpw(bcrypt.hashpw(utf8(password), setting.encode()), setting.encode()).decode())
        salt8 = salt[:8]
        pair('WORDPRESS', password, phpass_hash(utf8(password), salt8, 13, 'P'), note='passlib phpass $P$')
        pair('WORDPRESS', password, phpass_hash(utf8(password), salt8, 8, 'H'), note='passlib phpass $H$')
        pair('PHPBB', password, phpass_hash(latin1(password), salt8, 11, 'H'), note='phpBB 3.0 phpass over ISO-8859-1')
        pair('PHPBB', password, hashlib.md5(latin1(password)).hexdigest(), note='phpBB 2 MD5 over ISO-8859-1')

    # Names: AuthMe lower-cases the name before CRAZYCRYPT1 and SMF see it.
    pair('CRAZYCRYPT1', 'password', crazycrypt1('password', 'notch'), username='NOTCH')
    pair('SMF', 'password', sha1('notch' + 'password'), 'salt', username='Notch')
    pair('SMF', 'password', sha1('notch' + 'password'), '', note='an empty salt is still a salt', username='notch')

    # bcrypt reads at most 72 bytes of the password: a 0 byte is added, then the whole is cut at 72.
    long72 = 'x' * 72
    h = pybcrypt(long72.encode(), '2a', 4, b'\x01' * 16)
    add('BCRYPT', long72 + 'tail that bcrypt never reads', h, note='72-byte limit')
    add('BCRYPT', 'x' * 71, h, expect=False, note='71 bytes differ from 72')
    h = pybcrypt(('y' * 71 + 'é').encode(), '2a', 4, b'\x02' * 16)
    add('BCRYPT', 'y' * 71 + 'è', h, note='cut inside a 2-byte letter: é and è share the first byte')
    add('BCRYPT', 'y' * 71 + 'ж', h, expect=False, note='ж starts with another byte')
    h = php_crypt('z' * 100, '$2y$04$' + bcrypt_salt(b'\x03' * 16))
    add('BCRYPT2Y', 'z' * 72, h, note='PHP cuts at 72 bytes too')

    # PBKDF2: AuthMe writes upper-case hex and reads either case; iterations come from the hash.
    raw = bytes(range(16))
    add('PBKDF2', 'password', pbkdf2_authme('password', '0123456789abcdef', 10000, upper=False), note='lower-case key')
    pair('PBKDF2', 'password', pbkdf2_authme('password', '0123456789abcdef', 1234), note='other iterations')
    pair('PBKDF2BASE64', 'password', pbkdf2_base64('password', raw, 120000), note="AuthMe's default when pbkdf2Rounds is 0")
    pair('PBKDF2DJANGO', 'password', django('password', 'Zx9aQ2LmPp0w', 29000), note="Django's own salt and rounds")
    pair('PBKDF2DJANGO', 'Пароль', django('Пароль', 'a1b2c3d4e5f6', 24000), note='ASCII only: ? for each other letter')
    add('PBKDF2DJANGO', '??????', django('Пароль', 'a1b2c3d4e5f6', 24000), note='so six ? match too')

    # Argon2: parameters are read from the hash; argon2id and argon2d are not AuthMe's.
    pair('ARGON2', 'password', argon2i('password', raw, m=4096, t=3, p=2), note='other parameters')
    pair('ARGON2', 'password', argon2i('password', raw + raw, m=1024, t=1, p=1, length=24), note='32-byte salt, 24-byte hash')
    h = hash_secret(b'password', raw, time_cost=2, memory_cost=65536, parallelism=1, hash_len=32, type=Type.ID).decode()
    add('ARGON2', 'password', h, expect='malformed', note='argon2id is not AuthMe')

    # phpBB reads only $H$ phpass; WordPress both.
    add('PHPBB', 'password', phpass_hash(b'password', 'abcdefgh', 11, 'P'), expect='malformed', note='phpBB reads only $H$')

    writes = []
    for password in PASSWORDS:
        writes.append({'fn': 'sha256', 'password': password, 'salt': '0123456789abcdef', 'hash': sha256_authme(password, '0123456789abcdef')})
        writes.append({'fn': 'pbkdf2', 'password': password, 'salt': 'fedcba9876543210', 'rounds': 10000, 'hash': pbkdf2_authme(password, 'fedcba9876543210', 10000)})
        writes.append({'fn': 'pbkdf2Base64', 'password': password, 'saltHex': raw.hex(), 'rounds': 10000, 'hash': pbkdf2_base64(password, raw, 10000)})
        writes.append({'fn': 'pbkdf2Django', 'password': password, 'salt': 'c0ffee123456', 'rounds': 24000, 'hash': django(password, 'c0ffee123456', 24000)})
        if password in ('password', 'Пароль_Игрока-2024'):
            writes.append({'fn': 'argon2', 'password': password, 'saltHex': raw.hex(), 'hash': argon2i(password, raw)})
        writes.append({'fn': 'bcrypt', 'password': password, 'saltHex': raw.hex(), 'version': '2a', 'cost': 6, 'hash': pybcrypt(utf8(password), '2a', 6, raw)})
        writes.append({'fn': 'bcrypt', 'password': password, 'saltHex': raw.hex(), 'version': '2y', 'cost': 5, 'hash': php_crypt(password, '$2y$05$' + bcrypt_salt(raw))})
        setting = '$2a$08$' + bcrypt_salt(raw)
        writes.append({'fn': 'wbb4', 'password': password, 'saltHex': raw.hex(), 'hash': bcrypt.hashpw(bcrypt.hashpw(utf8(password), setting.encode()), setting.encode()).decode()})
        salt6 = bytes.fromhex('a0b1c2d3e4f5')
        salt8 = phpass_salt(salt6)
        writes.append({'fn': 'wordpress', 'password': password, 'saltHex': salt6.hex(), 'hash': phpass_hash(utf8(password), salt8, 13, 'P')})
        writes.append({'fn': 'joomla', 'password': password, 'salt': 'ab' * 16, 'hash': md5(password + 'ab' * 16) + ':' + 'ab' * 16})
        writes.append({'fn': 'md5vb', 'password': password, 'salt': '00ff00ff00ff00ff', 'hash': '$MD5vb$00ff00ff00ff00ff$' + md5(md5(password) + '00ff00ff00ff00ff')})
        writes.append({'fn': 'crazycrypt1', 'password': password, 'username': 'steve', 'hash': crazycrypt1(password, 'steve')})
    writes.append({'fn': 'bcrypt', 'password': 'password', 'saltHex': raw.hex(), 'version': '2a', 'cost': 12, 'hash': pybcrypt(b'password', '2a', 12, raw)})
    return {'vectors': vectors, 'writes': writes}


def phpass_salt(raw6):
    """phpass's own little-endian Base64 of 6 bytes: the 8 salt characters AuthMe's Wordpress writes."""
    itoa64 = './0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
    out = ''
    for i in range(0, 6, 3):
        value = raw6[i] | raw6[i + 1] << 8 | raw6[i + 2] << 16
        out += ''.join(itoa64[(value >> (6 * k)) & 63] for k in range(4))
    return out


def check(path):
    """Checks hashes another implementation wrote against the Python ones above."""
    failures = 0
    for row in json.load(open(path)):
        algorithm, password, name, h, salt = row['algorithm'], row['password'], row['username'].lower(), row['hash'], row['salt']
        if algorithm in UNSALTED:
            ok = h == UNSALTED[algorithm](password)
        elif algorithm in SEPARATE:
            ok = salt is not None and h == SEPARATE[algorithm][0](password, salt, name)
        elif algorithm == 'SHA256':
            ok = h == sha256_authme(password, h.split('$')[2])
        elif algorithm == 'PBKDF2':
            _, rounds, s, _key = h.split('$')
            ok = h == pbkdf2_authme(password, s, int(rounds))
        elif algorithm == 'PBKDF2BASE64':
            _, rounds, s, _key = h.split('$')
            ok = h == pbkdf2_base64(password, base64.b64decode(s), int(rounds))
        elif algorithm == 'PBKDF2DJANGO':
            ok = django_pbkdf2_sha256.verify(ascii_(password), h)
        elif algorithm == 'ARGON2':
            parts = h.split('$')
            ok = parts[1] == 'argon2i' and argon2_verify(h, password)
        elif algorithm in ('BCRYPT', 'BCRYPT2Y', 'XFBCRYPT', 'IPB4', 'PHPBB'):
            ok = bcrypt.checkpw(utf8(password), h.encode()) and php_crypt(password, h) == h
        elif algorithm == 'WBB4':
            ok = bcrypt.hashpw(bcrypt.hashpw(utf8(password), h[:29].encode()), h[:29].encode()).decode() == h
        elif algorithm == 'WORDPRESS':
            ok = phpass.verify(utf8(password), h)
        elif algorithm == 'JOOMLA':
            ok = h == md5(password + h[33:]) + ':' + h[33:]
        elif algorithm == 'MD5VB':
            s = h.split('$')[2]
            ok = h == '$MD5vb$%s$%s' % (s, md5(md5(password) + s))
        elif algorithm == 'CRAZYCRYPT1':
            ok = h == crazycrypt1(password, name)
        else:
            print('?', algorithm)
            failures += 1
            continue
        print('ok ' if ok else 'BAD', algorithm, h, salt)
        failures += 0 if ok else 1
    sys.exit(1 if failures else 0)


def argon2_verify(h, password):
    from argon2 import PasswordHasher
    from argon2.exceptions import VerifyMismatchError

    try:
        return PasswordHasher().verify(h, utf8(password))
    except VerifyMismatchError:
        return False


if __name__ == '__main__':
    if len(sys.argv) == 3 and sys.argv[1] == '--check':
        check(sys.argv[2])
    else:
        json.dump(build(), sys.stdout, ensure_ascii=False, indent=1)
        sys.stdout.write('\n')
